#!/usr/bin/env bash
# Installs everything the build, the tests and `make run` need: Debian's packages
# (apt), then the pinned npm packages of the tests (scripts/install-npm-deps.sh),
# the pinned Apache Kafka jars from Maven Central (scripts/install-kafka.sh)
# and the pinned Go tools (grpcurl) and the gateway's Go modules from the Go
# module proxy (scripts/install-go-tools.sh).
# Idempotent: packages already present are skipped, so a warm run costs one dpkg query.
set -euo pipefail

PKGS=(
  # build
  bazel-bootstrap g++ pkg-config protobuf-compiler protobuf-compiler-grpc
  libgrpc++-dev libprotobuf-dev libprotoc-dev libabsl-dev libre2-dev
  librdkafka-dev libsoci-dev libpq-dev libboost-dev libcurl4-openssl-dev
  prometheus-cpp-dev libspdlog-dev libfmt-dev libyaml-cpp-dev libcli11-dev
  nlohmann-json3-dev libkainjow-mustache-dev libssl-dev libjwt-dev
  # sink connectors: the vendors' clients
  libhiredis-dev libsnappy-dev libmongoc-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # the official JSON-Schema-Test-Suite (sink/filter/json_schema_test)
  json-schema-test-suite
  # fuzzing (libFuzzer runtime comes with clang)
  clang libclang-rt-14-dev
  # Go's text/template with sprig, in GOPATH mode with Debian's Go: the
  # reference side of the template differential test
  # (common/gotemplate/difftest); x/text for Siren's title. (The gateway is
  # built from gateway/go.mod's modules with the machine's Go:
  # scripts/install-go-tools.sh.)
  golang-go golang-github-masterminds-sprig-dev golang-golang-x-text-dev
  # OCI images (make images): no daemon, root filesystems from apt's sources;
  # the stack test reads deploy/*.yaml (python3-yaml) in its own network
  # namespace (iproute2 brings its loopback up)
  mmdebstrap buildah podman skopeo python3-yaml iproute2
  # the browser check of the gateway's API reference page (puppeteer-core
  # drives it: integration/apidocs_browser_test)
  chromium
  # runtime peers for tests and `make run`
  postgresql postgresql-contrib kcat prometheus-alertmanager curl python3 procps openssl
  redis-server influxdb influxdb-client prometheus clickhouse-server clickhouse-client
  # Apache Kafka (KRaft) and the Java KafkaConsumer Firehose runs on: a JDK
  # runs both, Maven fetches their jars (third_party/kafka/pom.xml)
  openjdk-17-jdk-headless maven
  # instructions per record in the real-broker benchmark (callgrind, and its
  # client-request header valgrind/callgrind.h, which the bench compiles with)
  valgrind
  # AWS's own SigV4 signer, to check the S3 DLQ's signatures (s3rver does not)
  python3-botocore
  # MongoDB: the official Python driver proves the fake (integration/mongo_fake); its bson module encodes BSON there
  python3-pymongo
)
# Node.js runs the fake Google APIs (integration/gcp_fake) and Google's official
# clients against it; Debian's own packages unless a node with npm is already there.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  PKGS+=(nodejs npm)
fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

echo "install-deps: npm packages in $("$(dirname "$0")/install-npm-deps.sh")"
echo "install-deps: the gateway's Redoc and puppeteer-core in $("$(dirname "$0")/install-npm-deps.sh" gateway/apidocs)"
echo "install-deps: Kafka jars in $("$(dirname "$0")/install-kafka.sh")"
echo "install-deps: Go tools (grpcurl; the gateway's modules) in $("$(dirname "$0")/install-go-tools.sh")"
echo "install-deps: the OpenTelemetry Collector of the tracing test: $("$(dirname "$0")/install-otelcol.sh")"
