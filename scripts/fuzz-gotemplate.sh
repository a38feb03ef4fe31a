#!/usr/bin/env bash
# Fuzzes the Go template engine (common/gotemplate: Siren's template language,
# parser, executor and functions under their size, depth, time and output
# budgets) with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz-gotemplate.sh [seconds]     (default 60)
#
# The fuzzer is a bazel target, //common/gotemplate/fuzz:gotemplate_fuzzer,
# built with --config=fuzz by scripts/fuzz-build.sh (clang; the disk cache keeps
# it). It runs for a bounded time from the seed corpus in
# common/gotemplate/fuzz/corpus/, keeping what it finds in $SLUICE_FUZZ_DIR
# (default /tmp/sluice-fuzz-gotemplate). Memory is capped, so a budget that
# stops working shows up as a crash. Exits non-zero on a crash (the reproducer
# is left there as crash-*/oom-*/timeout-*); always prints the number of
# executions.
set -euo pipefail

SECS="${1:-60}"
if [[ ! "$SECS" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [seconds]" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${SLUICE_FUZZ_DIR:-/tmp/sluice-fuzz-gotemplate}"
mkdir -p "$OUT/corpus"
cd "$ROOT"
start=$(date +%s)
BIN="$("$ROOT/scripts/fuzz-build.sh" //common/gotemplate/fuzz:gotemplate_fuzzer)"
echo "gotemplate fuzzer: built in $(($(date +%s) - start))s"

LOG="$OUT/fuzz.log"
set +e
ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$BIN" -max_total_time="$SECS" -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
  -malloc_limit_mb=512 -print_final_stats=1 -dict=common/gotemplate/fuzz/gotemplate.dict \
  -artifact_prefix="$OUT/" "$OUT/corpus" common/gotemplate/fuzz/corpus >"$LOG" 2>&1
rc=$?
set -e
execs="$(grep -E '^stat::number_of_executed_units' "$LOG" | awk '{print $2}')"
echo "gotemplate fuzzer: ${execs:-unknown} executions in ${SECS}s (exit code $rc, log $LOG)"
if [[ $rc -ne 0 ]]; then
  grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$LOG" | head -20 >&2
  exit "$rc"
fi
