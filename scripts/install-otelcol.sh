#!/usr/bin/env bash
# Builds the OpenTelemetry Collector that the tracing test runs
# (integration/tracing_test), with the collector's own builder
# (go.opentelemetry.io/collector/cmd/builder, pinned below) from the modules
# tools/otelcol/builder-config.yaml pins: the OTLP receiver, the batch
# processor, the OTLP/HTTP and debug exporters. Nothing but Go modules from
# the Go module proxy.
#
#   SLUICE_GO_TOOLS_HOME  the cache (default /var/cache/sluice/go): bin/ holds
#                         sluice-otelcol, mod/ Go's module cache
#   SLUICE_GO             the Go toolchain (default /usr/local/go/bin/go)
#
# Idempotent: a binary whose stamp names this builder and config is kept (a
# warm run reads two files). Prints the binary's path; the tests take it from
# $SLUICE_OTELCOL, else that path.
set -euo pipefail
BUILDER=go.opentelemetry.io/collector/cmd/builder@v0.165.0
here="$(cd "$(dirname "$0")/.." && pwd)"
config="$here/tools/otelcol/builder-config.yaml"
home="${SLUICE_GO_TOOLS_HOME:-/var/cache/sluice/go}"
bin="$home/bin/sluice-otelcol"
stamp="$home/bin/.sluice-otelcol.stamp"
want="$BUILDER $(sha256sum "$config" | cut -d' ' -f1)"
if [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$bin"
  exit 0
fi
go="${SLUICE_GO:-}"
if [ -z "$go" ]; then
  if [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go; else go="$(command -v go)"; fi
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/sluice-otelcol.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$home/bin" "$home/mod"
export GOMODCACHE="$home/mod" GOCACHE="$work/build" GOPATH="$work/gopath" GOTOOLCHAIN=local \
  GOFLAGS=-modcacherw GO111MODULE=on CGO_ENABLED=0
echo "install-otelcol: building the collector with $BUILDER ($("$go" env GOVERSION)); a few minutes once" >&2
start=$SECONDS
GOBIN="$work/bin" "$go" install "$BUILDER" >&2
"$work/bin/builder" --config "$config" --output-path "$work/out" >"$work/builder.log" 2>&1 ||
  { cat "$work/builder.log" >&2; exit 1; }
rm -f "$stamp"
cp "$work/out/sluice-otelcol" "$bin"
echo "$want" >"$stamp"
echo "install-otelcol: $("$bin" --version) in $((SECONDS - start)) s" >&2
echo "$bin"
