#!/usr/bin/env bash
# Copies the Apache Kafka broker's and Java client's jars, pinned in
# third_party/kafka/pom.xml (Kafka 4.1.1), from Maven Central into a cache,
# for scripts/kafka-broker.sh, the integration tests and the benchmarks; and
# those of third_party/kafka/3.9/pom.xml (Kafka 3.9.1, for the SCRAM test only,
# see that pom) beside them.
#
#   SLUICE_KAFKA_HOME  the cache (default /var/cache/sluice/kafka): libs/ and
#                      libs-3.9/ hold the jars, m2/ Maven's own repository
#
# Idempotent: a jar directory whose stamp matches its pom's checksum is kept
# (a warm run costs two sha256sums). Prints the 4.1.1 jars' directory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
home="${SLUICE_KAFKA_HOME:-/var/cache/sluice/kafka}"

# fetch POM DIR: the jars of POM into $home/DIR, unless its stamp is current.
fetch() {
  local pom="$1" dir="$home/$2" want
  want="$(sha256sum "$pom" | cut -d' ' -f1)"
  if [ -f "$dir.stamp" ] && [ "$(cat "$dir.stamp")" = "$want" ]; then return 0; fi
  local sudo=""
  if [ ! -w "$(dirname "$home")" ] && [ ! -w "$home" ] && [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo mkdir -p "$home"
  if [ -n "$sudo" ]; then $sudo chown "$(id -u):$(id -g)" "$home"; fi
  echo "install-kafka: fetching the jars of $pom into $dir" >&2
  rm -rf "$dir.new"
  mvn -q -B -f "$pom" dependency:copy-dependencies \
    -Dmaven.repo.local="$home/m2" -DoutputDirectory="$dir.new" >&2
  rm -rf "$dir"
  mv "$dir.new" "$dir"
  echo "$want" >"$dir.stamp"
}

fetch "$here/../third_party/kafka/pom.xml" libs
fetch "$here/../third_party/kafka/3.9/pom.xml" libs-3.9
echo "$home/libs"
