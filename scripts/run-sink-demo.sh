#!/usr/bin/env bash
# The sluice-sink part of `make run`: starts a real Apache Kafka broker
# (scripts/kafka-broker.sh, KRaft, one node, data in a temporary directory),
# creates the topic with 4 partitions, serves the sample descriptor set over
# HTTP as the schema registry, produces a stream of sample protobuf records,
# and runs one sluice-sink with a JEXL filter and the log sink, so that a
# newcomer sees the pipeline work. Ctrl-C stops everything, the sink first.
#
# Environment:
#   DEMO_SECONDS       stop after this many seconds (default: run until Ctrl-C)
#   DEMO_RATE          records per second produced (default 20)
#   DEMO_FILTER        the JEXL filter (default: ON_TRIP orders)
#   SINK_CONTROL_PORT  control API port (default 8082; grpcurl -plaintext localhost:8082 list)
#   DEMO_KAFKA_PORT    the broker's PLAINTEXT port (default: a free one)
set -euo pipefail
cd "$(dirname "$0")/.."

# The broker's jars (a no-op when scripts/install-deps.sh fetched them).
SLUICE_KAFKA_LIBS="$(./scripts/install-kafka.sh)"
export SLUICE_KAFKA_LIBS
bazel build //sink:sluice-sink //sink/sample:sluice-sample-producer \
  //sink/sample:sample_cc_descriptor_set >&2
BIN="$(bazel info bazel-bin 2>/dev/null)"
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

tmp="$(mktemp -d)"
pids=()
cleanup() {
  # Newest first: the sink commits and leaves the group while the broker is
  # still up, then the producer, the registry and the broker stop. Each gets
  # 20 s after SIGTERM (the sink bounds its own shutdown at 13 s), then -9.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[$i]}" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "${pids[$i]}" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "${pids[$i]}" 2>/dev/null || true
    wait "${pids[$i]}" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# 1. Apache Kafka, its output in $tmp/kafka.log. SIGTERM stops it after a
# controlled shutdown. In its own session: Ctrl-C (SIGINT to the terminal's
# process group) must not stop it before the sink has committed and left the
# group; cleanup stops it last. (setsid does not fork here, so $! is the
# broker's pid: kafka-broker.sh execs java.)
KAFKA_PORT="${DEMO_KAFKA_PORT:-$(free_port)}"
setsid ./scripts/kafka-broker.sh "$tmp/kafka" "$KAFKA_PORT" "$(free_port)" >"$tmp/kafka.log" 2>&1 &
broker_pid=$!
pids+=($broker_pid)
BROKERS="127.0.0.1:$KAFKA_PORT"
echo "kafka broker: starting on $BROKERS (data in $tmp/kafka)" >&2

# 2. Schema registry: the descriptor set over HTTP.
mkdir -p "$tmp/www"
cp "$BIN/sink/sample/sample_cc.desc" "$tmp/www/sample.desc"
HTTP_PORT="$(free_port)"
python3 -m http.server "$HTTP_PORT" --bind 127.0.0.1 --directory "$tmp/www" >"$tmp/http.log" 2>&1 &
pids+=($!)
STENCIL_URL="http://127.0.0.1:$HTTP_PORT/sample.desc"
for _ in $(seq 50); do curl -sf -o /dev/null "$STENCIL_URL" && break; sleep 0.1; done
echo "schema registry: $STENCIL_URL" >&2

# 3. A stream of sample records. The producer first creates sample-log with 4
# partitions, waiting for the broker to answer (its JVM takes 5-30 s to start).
"$BIN/sink/sample/sluice-sample-producer" --brokers "$BROKERS" --topic sample-log \
  --partitions 4 --rate "${DEMO_RATE:-20}" 2>"$tmp/producer.err" &
producer_pid=$!
pids+=($producer_pid)
until grep -q "topic sample-log ready" "$tmp/producer.err" 2>/dev/null; do
  if ! kill -0 "$broker_pid" 2>/dev/null || ! kill -0 "$producer_pid" 2>/dev/null; then
    echo "the Kafka broker or the sample producer stopped:" >&2
    tail -n 20 "$tmp/kafka.log" "$tmp/producer.err" >&2
    exit 1
  fi
  sleep 0.2
done
echo "$(grep -m1 'Apache Kafka' "$tmp/kafka.log"); $(grep -m1 'ready' "$tmp/producer.err")" >&2

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
