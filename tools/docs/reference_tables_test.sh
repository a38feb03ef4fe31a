#!/bin/sh
# Runs tools/docs/gen_reference.py --check on the runfiles tree (the
# workspace's layout): exit 1 with a diff when a table of docs/ is stale.
set -eu
cd "${TEST_SRCDIR}/${TEST_WORKSPACE}"
exec python3 tools/docs/gen_reference.py --check --root .
