#!/usr/bin/env bash
# `make run`: install, build, start a private PostgreSQL kept in ./.sluice/,
# migrate, start sluice-server and sluice-gateway and the streaming demo
# (scripts/run-sink-demo.sh), print the URLs, and stop everything cleanly on Ctrl-C.
#
# Ports (override with env): SLUICE_HTTP_PORT 8080, SLUICE_GRPC_PORT 8081,
# SLUICE_METRICS_PORT 9091, SLUICE_GATEWAY_METRICS_PORT 9095, SLUICE_PG_PORT 54329.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
HTTP_PORT="${SLUICE_HTTP_PORT:-8080}"
GRPC_PORT="${SLUICE_GRPC_PORT:-8081}"
METRICS_PORT="${SLUICE_METRICS_PORT:-9091}"
GATEWAY_METRICS_PORT="${SLUICE_GATEWAY_METRICS_PORT:-9095}"
PG_PORT="${SLUICE_PG_PORT:-54329}"
state="$root/.sluice"

./scripts/install-deps.sh
bazel build //server:sluice-server //gateway:sluice-gateway_gen //cli:sluicectl \
  //sink:sluice-sink //sink/sample:sluice-sample-producer \
  //sink/sample:sample_cc_descriptor_set
mkdir -p "$state/logs"

pids=()
cleanup() {
  trap - INT TERM EXIT
  echo
  echo "make run: stopping"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  ./scripts/pg.sh stop "$state/pg"
  echo "make run: stopped (data kept in $state; 'make clean-run' removes it)"
}
trap cleanup INT TERM EXIT

./scripts/pg.sh start "$state/pg" "$PG_PORT"
dsn="host=127.0.0.1 port=$PG_PORT user=postgres dbname=sluice"
if ! psql "host=127.0.0.1 port=$PG_PORT user=postgres dbname=postgres" -Atc \
    "SELECT 1 FROM pg_database WHERE datname='sluice'" | grep -q 1; then
  psql "host=127.0.0.1 port=$PG_PORT user=postgres dbname=postgres" -qc "CREATE DATABASE sluice"
fi
export SLUICE_DB_DSN="$dsn"

# The embedded development config: auth mode insecure_dev (the server believes
# X-Auth-Email from any local caller; it refuses this mode on a non-loopback
# listener), everything bound to 127.0.0.1, admin@example.com the admin of
# both APIs, every caller allowed to send notifications (senders: ["*"], a
# development convenience; production lists its senders), and a fixed
# development token for the Alertmanager hook.
DEV_ADMIN="admin@example.com"
export SLUICE_DEV_ALERT_TOKEN="dev-alert-hook-token-not-secret"
# Namespaces' hook tokens are derived from this (README "Alert hook tokens").
export SLUICE_DEV_ALERT_HOOK_SECRET="dev-alert-hook-secret-not-secret-0123456789"
mkdir -p "$state/files"
cat >"$state/sluice.yaml" <<YAML
grpc_host: 127.0.0.1
auth:
  mode: insecure_dev
access:
  admins: [$DEV_ADMIN]
notification:
  admins: [$DEV_ADMIN]
  senders: ["*"]
  file_receiver_dir: $state/files
  alert_hook_tokens:
    - {provider: "*", token_env: SLUICE_DEV_ALERT_TOKEN}
  alert_hook_secrets:
    - {provider: "*", secret_env: SLUICE_DEV_ALERT_HOOK_SECRET}
YAML

cp -f bazel-bin/server/sluice-server bazel-bin/gateway/sluice-gateway "$state/" 2>/dev/null || true
"$state/sluice-server" --config "$state/sluice.yaml" migrate
"$state/sluice-server" --config "$state/sluice.yaml" --grpc_port "$GRPC_PORT" \
  --metrics_port "$METRICS_PORT" >"$state/logs/server.log" 2>&1 &
pids+=($!)
"$state/sluice-gateway" --http_host 127.0.0.1 --http_port "$HTTP_PORT" \
  --backend "127.0.0.1:$GRPC_PORT" --metrics_host 127.0.0.1 --metrics_port "$GATEWAY_METRICS_PORT" \
  >"$state/logs/gateway.log" 2>&1 &
pids+=($!)

for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$HTTP_PORT/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done

# The streaming pipeline: Apache Kafka (scripts/kafka-broker.sh, jars from
# install-deps) → sample producer → sluice-sink (JEXL filter + log sink). Its
# output (the kept records) goes to logs/sink.log; the broker takes 5-30 s
# to start.
./scripts/run-sink-demo.sh >"$state/logs/sink.log" 2>&1 &
pids+=($!)

cat <<MSG

Sluice is running.
  REST (gateway):   http://localhost:$HTTP_PORT
                    try: curl -H 'X-Auth-Email: $DEV_ADMIN' http://localhost:$HTTP_PORT/api/v1beta1/server-info
  Auth:             insecure_dev (development only): X-Auth-Email is believed as sent;
                    admin of both APIs: $DEV_ADMIN; anyone may send notifications
                    writes need -H 'Content-Type: application/json'
  Alert hook:       http://localhost:$HTTP_PORT/api/v1beta1/alerts/<type>/<id>
                    with Authorization: Bearer $SLUICE_DEV_ALERT_TOKEN
  OpenAPI:          http://localhost:$HTTP_PORT/api/openapi.json (in a browser: http://localhost:$HTTP_PORT/docs)
  gRPC:             localhost:$GRPC_PORT  (reflection enabled)
  Metrics:          http://localhost:$METRICS_PORT/metrics (server), http://localhost:$GATEWAY_METRICS_PORT/metrics (gateway)
  Sink demo:        Apache Kafka (KRaft) + sample producer + sluice-sink (JEXL filter, log sink);
                    control API localhost:8082 (reflection), records in $state/logs/sink.log
  PostgreSQL:       $dsn
  Logs:             $state/logs/
Press Ctrl-C to stop.
MSG
tail -n 0 -F "$state/logs/server.log" "$state/logs/gateway.log" "$state/logs/sink.log" &
pids+=($!)
wait -n "${pids[@]}" || true
