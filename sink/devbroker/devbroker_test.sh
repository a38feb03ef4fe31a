#!/bin/bash
# Starts the dev broker with a 3-partition topic, checks the first stdout line
# is a bootstrap address, produces and consumes with kcat, and checks SIGTERM
# exits 0.
set -euo pipefail
BIN=sink/devbroker/sluice-devbroker
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$BIN" --brokers 2 --topic demo:3 >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 50); do [ -s "$tmp/out" ] && break; sleep 0.1; done
addr=$(head -1 "$tmp/out")
echo "bootstrap: $addr"
[[ "$addr" =~ ^127\.0\.0\.1:[0-9]+,127\.0\.0\.1:[0-9]+$ ]] || { echo "bad address '$addr'"; exit 1; }
parts=$(kcat -b "$addr" -L -t demo -J 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["topics"][0]["partitions"]))')
[ "$parts" = 3 ] || { echo "expected 3 partitions, got $parts"; exit 1; }
printf 'a\nb\nc\n' | kcat -b "$addr" -P -t demo -p 1
got=$(kcat -b "$addr" -C -t demo -p 1 -o beginning -c 3 -e -q | tr '\n' ' ')
[ "$got" = "a b c " ] || { echo "consumed '$got'"; exit 1; }
kill -TERM $pid
wait $pid
echo PASS
