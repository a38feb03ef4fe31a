#!/usr/bin/env bash
# Installs pinned npm packages with `npm ci` from a package{,-lock}.json:
#   scripts/install-npm-deps.sh          the tests' clients (the vendors'
#                                        official Node.js clients, to drive the
#                                        fakes the way real users do):
#                                        integration/gcp_fake/clients
#   scripts/install-npm-deps.sh DIR      the package in DIR (repo-relative),
#                                        e.g. gateway/apidocs (Redoc, embedded
#                                        in the gateway, and puppeteer-core)
# and prints its node_modules directory.
# Idempotent: the install lives in a directory named after the lockfile's
# hash and is skipped when that directory is complete.
# Installs into $SLUICE_NPM_DIR when set (the default package only), else
# /tmp/sluice-npm/<hash> (readable from bazel's test sandbox, which also calls
# this script).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/../${1:-integration/gcp_fake/clients}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "install-npm-deps: node and npm are required (scripts/install-deps.sh installs them)" >&2
  exit 1
fi
hash="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -c1-16)"
if [ -n "${1:-}" ]; then dir="/tmp/sluice-npm/$hash"; else dir="${SLUICE_NPM_DIR:-/tmp/sluice-npm/$hash}"; fi
if [ -f "$dir/.complete" ]; then
  echo "$dir/node_modules"
  exit 0
fi
mkdir -p "$dir"
# One installer at a time (tests may start in parallel).
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/.complete" ]; then
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --cache "$dir.npm-cache" --no-audit --no-fund --loglevel=error >&2)
  touch "$dir/.complete"
fi
echo "$dir/node_modules"
