#!/usr/bin/env bash
# Runs a command with a private, throwaway PostgreSQL server and exports
# SLUICE_TEST_PG_DSN (a libpq DSN for the `postgres` superuser database).
# Tests create their own databases from it (common/db/testing). The server is
# stopped and removed on exit, even when the command fails.
#   scripts/with-postgres.sh bazel test //...
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$(mktemp -d /tmp/sluice-pg.XXXXXX)"
# The DSN is part of every test's cache key (--test_env): a port that stays the
# same for a checkout lets bazel reuse the results of tests whose inputs did not
# change (docs/build.md). It is derived from the checkout's path; when it is
# taken (a second run of the same checkout), any free port is used instead.
port="$(python3 - "$(cd "$here/.." && pwd)" <<'PY'
import hashlib, socket, sys
want = 20000 + int(hashlib.md5(sys.argv[1].encode()).hexdigest(), 16) % 20000
for p in (want, 0):
    s = socket.socket()
    # As PostgreSQL's own listener: the last run's connections in TIME_WAIT
    # must not make the port look taken.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", p))
        print(s.getsockname()[1])
        break
    except OSError:
        pass
    finally:
        s.close()
PY
)"
cleanup() { "$here/pg.sh" stop "$dir" || true; rm -rf "$dir"; }
trap cleanup EXIT
"$here/pg.sh" start "$dir" "$port"
export SLUICE_TEST_PG_DSN="$("$here/pg.sh" dsn "$dir" "$port")"
echo "with-postgres: $SLUICE_TEST_PG_DSN" >&2
"$@"
