#!/usr/bin/env bash
# Runs a command with a private, throwaway PostgreSQL server and exports
# SLUICE_TEST_PG_DSN (a libpq DSN for the `postgres` superuser database).
# Tests create their own databases from it (common/db/testing). The server is
# stopped and removed on exit, even when the command fails.
#   scripts/with-postgres.sh bazel test //...
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$(mktemp -d /tmp/sluice-pg.XXXXXX)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
cleanup() { "$here/pg.sh" stop "$dir" || true; rm -rf "$dir"; }
trap cleanup EXIT
"$here/pg.sh" start "$dir" "$port"
export SLUICE_TEST_PG_DSN="$("$here/pg.sh" dsn "$dir" "$port")"
echo "with-postgres: $SLUICE_TEST_PG_DSN" >&2
"$@"
