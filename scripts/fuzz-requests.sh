#!/usr/bin/env bash
# Fuzzes the requests of every write route of the access and notification
# APIs (every non-GET google.api.http binding in their protos: 13 through a
# mirrored handler with follow-ups, the others through the real gRPC handler
# served in-process), with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer. See server/fuzz/request_dispatch.h for the
# input format and what counts as a failure; request_fuzzer_test checks that
# each route has a seed in server/fuzz/corpus/.
#
#   scripts/fuzz-requests.sh [seconds]     (default 60; 0 only replays the corpus)
#
# The fuzzer is a bazel target, //server/fuzz:request_fuzzer, built with
# --config=fuzz by scripts/fuzz-build.sh (clang; the disk cache keeps it, and
# its sources are the BUILD file's deps, not a list kept here). It runs for a
# bounded time from the seed corpus in server/fuzz/corpus/ with
# server/fuzz/requests.dict, keeping what it finds in $SLUICE_FUZZ_DIR (default
# /tmp/sluice-fuzz-requests), with memory capped (a body that makes the server
# allocate hundreds of MiB is a finding). Exits non-zero on a crash (the
# reproducer is left there as crash-*/oom-*/timeout-*; rerun it with the
# printed binary and the file); always prints the number of executions.
set -euo pipefail

SECS="${1:-60}"
if [[ ! "$SECS" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [seconds]" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${SLUICE_FUZZ_DIR:-/tmp/sluice-fuzz-requests}"
mkdir -p "$OUT/corpus"
cd "$ROOT"
start=$(date +%s)
BIN="$("$ROOT/scripts/fuzz-build.sh" //server/fuzz:request_fuzzer)"
echo "request fuzzer: built in $(($(date +%s) - start))s"

if ((SECS == 0)); then
  LIMIT=(-runs=0)  # libFuzzer: max_total_time=0 would mean no limit
else
  LIMIT=(-max_total_time="$SECS")
fi
LOG="$OUT/fuzz.log"
set +e
ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$BIN" "${LIMIT[@]}" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
  -print_final_stats=1 -dict=server/fuzz/requests.dict -artifact_prefix="$OUT/" \
  "$OUT/corpus" server/fuzz/corpus >"$LOG" 2>&1
rc=$?
set -e
execs="$(grep -E '^stat::number_of_executed_units' "$LOG" | awk '{print $2}')"
rate="$(grep -E '^stat::average_exec_per_sec' "$LOG" | awk '{print $2}')"
echo "request fuzzer: ${execs:-unknown} executions in ${SECS}s (${rate:-?}/s, exit code $rc, log $LOG)"
if [[ $rc -ne 0 ]]; then
  grep -E 'ERROR|runtime error|SUMMARY|Test unit written|request fuzzer:' "$LOG" | head -20 >&2
  exit "$rc"
fi
