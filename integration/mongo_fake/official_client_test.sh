#!/usr/bin/env bash
# The fake driven by MongoDB's official Python driver: Debian's python3-pymongo
# under Debian's /usr/bin/python3 (a python3 earlier in PATH may lack it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec /usr/bin/python3 "$here/official_client_test.py" -v
