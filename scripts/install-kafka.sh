#!/usr/bin/env bash
# Copies the Apache Kafka broker's and Java client's jars, pinned in
# third_party/kafka/pom.xml, from Maven Central into a cache, for
# scripts/kafka-broker.sh, the integration tests and the benchmarks.
#
#   SLUICE_KAFKA_HOME  the cache (default /var/cache/sluice/kafka): libs/ holds
#                      the jars, m2/ Maven's own repository
#
# Idempotent: a cache whose stamp matches the pom's checksum is kept (a warm run
# costs one sha256sum). Prints the cache's libs directory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pom="$here/../third_party/kafka/pom.xml"
home="${SLUICE_KAFKA_HOME:-/var/cache/sluice/kafka}"
want="$(sha256sum "$pom" | cut -d' ' -f1)"

if [ -f "$home/libs.stamp" ] && [ "$(cat "$home/libs.stamp")" = "$want" ]; then
  echo "$home/libs"
  exit 0
fi

SUDO=""
if [ ! -w "$(dirname "$home")" ] && [ ! -w "$home" ] && [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO mkdir -p "$home"
if [ -n "$SUDO" ]; then $SUDO chown "$(id -u):$(id -g)" "$home"; fi

echo "install-kafka: fetching the jars of $pom into $home/libs" >&2
rm -rf "$home/libs.new"
mvn -q -B -f "$pom" dependency:copy-dependencies \
  -Dmaven.repo.local="$home/m2" -DoutputDirectory="$home/libs.new" >&2
rm -rf "$home/libs"
mv "$home/libs.new" "$home/libs"
echo "$want" >"$home/libs.stamp"
echo "$home/libs"
