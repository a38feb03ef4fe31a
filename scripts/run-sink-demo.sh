#!/usr/bin/env bash
# The sluice-sink part of `make run`: starts the dev broker, serves the sample
# descriptor set over HTTP as the schema registry, produces a stream of sample
# protobuf records, and runs one sluice-sink with a JEXL filter and the log
# sink, so that a newcomer sees the pipeline work. Ctrl-C stops everything.
#
# Environment:
#   DEMO_SECONDS       stop after this many seconds (default: run until Ctrl-C)
#   DEMO_RATE          records per second produced (default 20)
#   DEMO_FILTER        the JEXL filter (default: ON_TRIP orders)
#   SINK_CONTROL_PORT  control API port (default 8082; grpcurl -plaintext localhost:8082 list)
set -euo pipefail
cd "$(dirname "$0")/.."

bazel build //sink:sluice-sink //sink/devbroker:sluice-devbroker \
  //sink/sample:sluice-sample-producer //sink/sample:sample_cc_descriptor_set >&2
BIN="$(bazel info bazel-bin 2>/dev/null)"

tmp="$(mktemp -d)"
pids=()
cleanup() {
  # Newest first: the sink commits and leaves the group while the broker is
  # still up, then the producer, the registry and the broker stop.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[$i]}" 2>/dev/null || true
    wait "${pids[$i]}" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# 1. Dev broker (librdkafka mock cluster).
"$BIN/sink/devbroker/sluice-devbroker" --topic sample-log:4 >"$tmp/broker.out" 2>"$tmp/broker.err" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/broker.out" ] && break; sleep 0.1; done
BROKERS="$(head -1 "$tmp/broker.out")"
echo "dev broker: $BROKERS (topic sample-log, 4 partitions)" >&2

# 2. Schema registry: the descriptor set over HTTP.
mkdir -p "$tmp/www"
cp "$BIN/sink/sample/sample_cc.desc" "$tmp/www/sample.desc"
HTTP_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
python3 -m http.server "$HTTP_PORT" --bind 127.0.0.1 --directory "$tmp/www" >"$tmp/http.log" 2>&1 &
pids+=($!)
STENCIL_URL="http://127.0.0.1:$HTTP_PORT/sample.desc"
for _ in $(seq 50); do curl -sf -o /dev/null "$STENCIL_URL" && break; sleep 0.1; done
echo "schema registry: $STENCIL_URL" >&2

# 3. A stream of sample records.
"$BIN/sink/sample/sluice-sample-producer" --brokers "$BROKERS" --topic sample-log \
  --rate "${DEMO_RATE:-20}" 2>"$tmp/producer.err" &
pids+=($!)

# 4. sluice-sink: JEXL filter + log sink.
FILTER="${DEMO_FILTER:-sampleLogMessage.getStatus() == \"ON_TRIP\" && sampleLogMessage.getPickup().getCity() != \"Pune\"}"
echo "sluice-sink filter: $FILTER" >&2
env SINK_TYPE=log \
  SOURCE_KAFKA_BROKERS="$BROKERS" \
  SOURCE_KAFKA_TOPIC=sample-log \
  SOURCE_KAFKA_CONSUMER_GROUP_ID=sluice-demo \
  SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET=earliest \
  INPUT_SCHEMA_PROTO_CLASS='io.sluice.sample.SampleProto$SampleLogMessage' \
  SCHEMA_REGISTRY_STENCIL_ENABLE=true \
  SCHEMA_REGISTRY_STENCIL_URLS="$STENCIL_URL" \
  SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY=LONG_POLLING \
  SCHEMA_REGISTRY_STENCIL_CACHE_AUTO_REFRESH=true \
  SCHEMA_REGISTRY_STENCIL_CACHE_TTL_MS=60000 \
  FILTER_ENGINE=JEXL \
  FILTER_DATA_SOURCE=MESSAGE \
  FILTER_SCHEMA_PROTO_CLASS=sluice.sample.SampleLogMessage \
  FILTER_JEXL_EXPRESSION="$FILTER" \
  SINK_CONTROL_PORT="${SINK_CONTROL_PORT:-8082}" \
  "$BIN/sink/sluice-sink" &
pids+=($!)
sink_pid=$!

if [ -n "${DEMO_SECONDS:-}" ]; then
  sleep "$DEMO_SECONDS"
  kill -TERM "$sink_pid"
  wait "$sink_pid"
else
  wait "$sink_pid"
fi
