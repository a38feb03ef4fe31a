#!/usr/bin/env bash
# Installs mkdocs, pinned with all its dependencies in
# third_party/mkdocs/requirements.txt, from PyPI into a virtualenv, for
# `make docs` (scripts/docs.sh).
#
#   SLUICE_MKDOCS_HOME  the cache (default /var/cache/sluice/mkdocs): venv/
#                       holds the virtualenv
#   SLUICE_PYTHON       the Python that makes the venv (default python3)
#
# Idempotent: a venv whose stamp matches the requirements' checksum and the
# Python version is kept (a warm run costs a sha256sum). Prints the venv's
# bin/ directory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
home="${SLUICE_MKDOCS_HOME:-/var/cache/sluice/mkdocs}"
python="${SLUICE_PYTHON:-python3}"
req="$here/../third_party/mkdocs/requirements.txt"

want="$(sha256sum "$req" | cut -d' ' -f1) $("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
venv="$home/venv"
if [ -x "$venv/bin/mkdocs" ] && [ -f "$venv.stamp" ] && [ "$(cat "$venv.stamp")" = "$want" ]; then
  echo "$venv/bin"
  exit 0
fi
sudo=""
if [ ! -w "$(dirname "$home")" ] && [ ! -w "$home" ] && [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo mkdir -p "$home"
if [ -n "$sudo" ]; then $sudo chown "$(id -u):$(id -g)" "$home"; fi
echo "install-mkdocs: installing $req into $venv" >&2
# Straight into the final path (a venv's scripts name it); the stamp is
# written last, so an interrupted install is redone by the next run.
rm -rf "$venv" "$venv.stamp"
"$python" -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$req" >&2
"$venv/bin/pip" check >&2
echo "$want" >"$venv.stamp"
echo "$venv/bin"
