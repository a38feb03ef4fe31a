#!/usr/bin/env bash
# Installs the pinned npm packages that tests use (Google's official Node.js
# clients, to drive integration/gcp_fake the way real users do) from
# integration/gcp_fake/clients/package{,-lock}.json with `npm ci`.
# Idempotent: the install lives in a directory named after the lockfile's
# hash and is skipped when that directory is complete.
#   scripts/install-npm-deps.sh          prints the node_modules directory
# Installs into $SLUICE_NPM_DIR when set, else /tmp/sluice-npm/<hash>
# (readable from bazel's test sandbox, which also calls this script).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/../integration/gcp_fake/clients"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "install-npm-deps: node and npm are required (scripts/install-deps.sh installs them)" >&2
  exit 1
fi
hash="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -c1-16)"
dir="${SLUICE_NPM_DIR:-/tmp/sluice-npm/$hash}"
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
