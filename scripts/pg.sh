#!/usr/bin/env bash
# Private PostgreSQL instance management, as the `postgres` user (initdb refuses root).
#   scripts/pg.sh start DIR PORT   initdb DIR if needed, start on PORT with its socket in DIR
#   scripts/pg.sh stop DIR         fast shutdown
#   scripts/pg.sh dsn DIR PORT     print the libpq DSN for the `postgres` database
set -euo pipefail

PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
cmd="${1:?usage: pg.sh start|stop|dsn DIR [PORT]}"
dir="${2:?DIR required}"

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
  start)
    port="${3:?PORT required}"
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$dir"; fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_pg "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      start >/dev/null
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    fi
    ;;
  dsn)
    port="${3:?PORT required}"
    echo "host=127.0.0.1 port=$port user=postgres dbname=postgres"
    ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac
