#!/usr/bin/env bash
# Fuzzes the expression engine (common/expr: parse + evaluate) with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz-expr.sh [seconds]     (default 60)
#
# The fuzzer is a bazel target, //common/expr/fuzz:expr_fuzzer, built with
# --config=fuzz by scripts/fuzz-build.sh (clang; the disk cache keeps it). It
# runs for a bounded time from the seed corpus in common/expr/fuzz/corpus/,
# keeping what it finds in $SLUICE_FUZZ_DIR (default /tmp/sluice-fuzz-expr).
# Exits non-zero on a crash (the reproducer is left there as crash-*); always
# prints the number of executions.
set -euo pipefail

SECS="${1:-60}"
if [[ ! "$SECS" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [seconds]" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${SLUICE_FUZZ_DIR:-/tmp/sluice-fuzz-expr}"
mkdir -p "$OUT/corpus"
cd "$ROOT"
start=$(date +%s)
BIN="$("$ROOT/scripts/fuzz-build.sh" //common/expr/fuzz:expr_fuzzer)"
echo "expr fuzzer: built in $(($(date +%s) - start))s"

LOG="$OUT/fuzz.log"
set +e
ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$BIN" -max_total_time="$SECS" -max_len=1024 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -dict=common/expr/fuzz/expr.dict -artifact_prefix="$OUT/" \
  "$OUT/corpus" common/expr/fuzz/corpus >"$LOG" 2>&1
rc=$?
set -e
execs="$(grep -E '^stat::number_of_executed_units' "$LOG" | awk '{print $2}')"
echo "expr fuzzer: ${execs:-unknown} executions in ${SECS}s (exit code $rc, log $LOG)"
if [[ $rc -ne 0 ]]; then
  grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$LOG" | head -20 >&2
  exit "$rc"
fi
