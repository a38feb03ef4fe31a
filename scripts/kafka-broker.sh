#!/usr/bin/env bash
# Runs one Apache Kafka broker in KRaft mode (broker and controller in one
# process, single node) in the foreground, from the jars of
# scripts/install-kafka.sh. Used by `make run`, the integration tests
# (integration/kafka_broker.h) and the benchmarks.
#
#   kafka-broker.sh DIR PORT CONTROLLER_PORT
#
# DIR is the broker's private directory: its data (DIR/data), its generated
# DIR/server.properties and log4j output. The PLAINTEXT listener is
# 127.0.0.1:PORT, the controller's 127.0.0.1:CONTROLLER_PORT. Optional inputs
# in DIR, read when present:
#   extra.properties  appended to server.properties (later keys win), e.g.
#                     SASL or SSL listeners
#   scram-users       one "MECHANISM=[name=U,password=P]" per line, created
#                     when the data directory is formatted
# DIR/data is formatted once; a restart on the same DIR keeps the topics,
# records and committed offsets.
#
#   SLUICE_KAFKA_LIBS  the jars (default /var/cache/sluice/kafka/libs)
#   KAFKA_HEAP_OPTS    JVM heap flags (default -Xms256m -Xmx1g)
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 DIR PORT CONTROLLER_PORT" >&2
  exit 2
fi
dir="$(mkdir -p "$1" && cd "$1" && pwd)"
port="$2"
cport="$3"
libs="${SLUICE_KAFKA_LIBS:-/var/cache/sluice/kafka/libs}"
jar="$(ls "$libs"/kafka_2.13-*.jar 2>/dev/null | head -1 || true)"
if [ -z "$jar" ]; then
  echo "kafka-broker: no Kafka jars in $libs; run scripts/install-kafka.sh (make deps does)" >&2
  exit 1
fi
version="$(basename "$jar" .jar)"
version="${version#kafka_2.13-}"

cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
controller.listener.names=CONTROLLER
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL
log.dirs=$dir/data
num.partitions=1
auto.create.topics.enable=true
# One node: every internal topic has one replica.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# Tests start groups at once and use short sessions.
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
# A restarted broker re-registers once its old session lapses (default 9 s).
broker.session.timeout.ms=2000
broker.heartbeat.interval.ms=500
PROPS
if [ -f "$dir/extra.properties" ]; then
  { echo "# from extra.properties"; cat "$dir/extra.properties"; } >>"$dir/server.properties"
fi

if [ ! -f "$dir/data/meta.properties" ]; then
  scram=()
  if [ -f "$dir/scram-users" ]; then
    while IFS= read -r line; do
      [ -n "$line" ] && scram+=(--add-scram "$line")
    done <"$dir/scram-users"
  fi
  # A cluster id is 16 random bytes in URL-safe base64 without padding. One
  # starting with "-" would be read as an option by kafka-storage (1 in 64
  # starts); Kafka's Uuid.randomUuid() draws again in that case too.
  cluster_id="-"
  while [ "${cluster_id#-}" != "$cluster_id" ]; do
    cluster_id="$(head -c 16 /dev/urandom | base64 | tr "+/" "-_" | cut -c1-22)"
  done
  java -cp "$libs/*" kafka.tools.StorageTool format -t "$cluster_id" \
    -c "$dir/server.properties" "${scram[@]}" >"$dir/format.log" 2>&1 ||
    { cat "$dir/format.log" >&2; exit 1; }
fi

echo "kafka-broker: Apache Kafka $version (KRaft), 127.0.0.1:$port, data in $dir/data" >&2
# exec: the caller's pid is the broker's, so its signals reach the JVM.
exec java ${KAFKA_HEAP_OPTS:--Xms256m -Xmx1g} -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
  -Djava.awt.headless=true -cp "$libs/*" kafka.Kafka "$dir/server.properties"
