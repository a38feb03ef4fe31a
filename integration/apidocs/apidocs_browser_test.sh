#!/usr/bin/env bash
# The gateway's API reference page (/docs) in headless Chromium (Debian's
# package, driven by puppeteer-core from gateway/apidocs, pinned): it loads
# with no console error and lists every operation of each service. The page
# and the OpenAPI document need no backend, so the gateway runs alone. The
# screenshot lands in the test's outputs (bazel-testlogs/.../test.outputs/).
set -euo pipefail
gateway="$TEST_SRCDIR/$TEST_WORKSPACE/gateway/sluice-gateway"
check="$TEST_SRCDIR/$TEST_WORKSPACE/integration/apidocs/check.cjs"
install="$TEST_SRCDIR/$TEST_WORKSPACE/scripts/install-npm-deps.sh"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}"
command -v "${CHROMIUM:-/usr/bin/chromium}" >/dev/null ||
  { echo "no Chromium at ${CHROMIUM:-/usr/bin/chromium}: scripts/install-deps.sh installs Debian's"; exit 1; }
# install-npm-deps.sh reads the package from the source tree it sits in.
node_modules="$(cd "$(dirname "$(readlink -f "$install")")/.." && scripts/install-npm-deps.sh gateway/apidocs)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$gateway" --http_host 127.0.0.1 --http_port "$port" --backend 127.0.0.1:1 --metrics_port 0 \
  >"$TEST_TMPDIR/gateway.log" 2>&1 &
gw=$!
trap 'kill $gw 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/ping" >/dev/null 2>&1 && break
  sleep 0.1
done
# The page's own headers: a strict CSP, and the bundle served from the binary.
headers="$(curl -fsS -D - -o /dev/null "http://127.0.0.1:$port/docs")"
echo "$headers" | grep -qi "^content-security-policy: default-src 'none'; script-src 'self';" ||
  { echo "/docs lacks its Content-Security-Policy:"; echo "$headers"; exit 1; }
size="$(curl -fsS "http://127.0.0.1:$port/docs/redoc.standalone.js" | wc -c)"
[ "$size" -gt 500000 ] || { echo "/docs/redoc.standalone.js is $size bytes"; exit 1; }
NODE_PATH="$node_modules" node "$check" "http://127.0.0.1:$port" "$out/apidocs.png"
