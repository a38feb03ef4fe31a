#!/usr/bin/env bash
# Builds one libFuzzer target and runs it for a bounded time, with
# AddressSanitizer and UndefinedBehaviorSanitizer; what scripts/fuzz-expr.sh,
# fuzz-requests.sh, fuzz-template.sh and fuzz-gotemplate.sh share.
#
#   scripts/fuzz-run.sh TARGET NAME SECONDS CORPUS DICT [LIBFUZZER_FLAG...]
#
# TARGET is a bazel target built with --config=fuzz by scripts/fuzz-build.sh
# (clang; the disk cache keeps it). It runs for SECONDS (0 only replays the
# corpora) from the seed corpus CORPUS with the dictionary DICT (both relative
# to the repository root), keeping what it finds in $SLUICE_FUZZ_DIR (default
# /tmp/sluice-fuzz-NAME). LIBFUZZER_FLAGs (-max_len, -rss_limit_mb,
# -malloc_limit_mb, ...) follow -timeout=10. Prints "<label>: built in Ns" and
# "<label>: N executions in Ss (R/s, exit code C, log L)", the label being the
# target's name with spaces ("request fuzzer"). Exits non-zero on a crash (the
# reproducer is left in the output directory as crash-*/oom-*/timeout-*) and
# prints the log's error lines.
#
# With SLUICE_FUZZ_PASSED_DIR set (`make test` sets it), a run that passes
# leaves a stamp there keyed by the binary, the seed corpus, the dictionary,
# SECONDS, the flags and this script; the next run with the same key is
# skipped, as bazel skips a test whose inputs did not change, and says when
# that key last ran clean. SLUICE_FUZZ_ALWAYS=1 runs it anyway.
set -euo pipefail

if [[ $# -lt 5 ]]; then
  echo "usage: $0 TARGET NAME SECONDS CORPUS DICT [LIBFUZZER_FLAG...]" >&2
  exit 2
fi
TARGET="$1" NAME="$2" SECS="$3" CORPUS="$4" DICT="$5"
shift 5
if [[ ! "$SECS" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz-$NAME.sh [seconds] (a whole number, got '$SECS')" >&2
  exit 2
fi
LABEL="${TARGET##*:}"
LABEL="${LABEL//_/ }"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${SLUICE_FUZZ_DIR:-/tmp/sluice-fuzz-$NAME}"
mkdir -p "$OUT/corpus"
cd "$ROOT"
start=$(date +%s)
BIN="$("$ROOT/scripts/fuzz-build.sh" "$TARGET")"
echo "$LABEL: built in $(($(date +%s) - start))s"

STAMP=""
if [[ -n "${SLUICE_FUZZ_PASSED_DIR:-}" ]]; then
  # This script is in the key too: it sets the sanitizers' options.
  KEY="$( { sha256sum "$BIN" "$DICT" "$ROOT/scripts/fuzz-run.sh" | cut -d' ' -f1
            find "$CORPUS" -type f -print0 | sort -z | xargs -0 -r sha256sum
            echo "$SECS" "$@"; } | sha256sum | cut -c1-32)"
  STAMP="$SLUICE_FUZZ_PASSED_DIR/$NAME-$KEY"
  if [[ -s "$STAMP" && "${SLUICE_FUZZ_ALWAYS:-0}" != 1 ]]; then
    echo "$LABEL: skipped: this binary, seed corpus and flags already ran clean ($(cat "$STAMP"));" \
      "SLUICE_FUZZ_ALWAYS=1 runs it again"
    exit 0
  fi
fi

if ((SECS == 0)); then
  LIMIT=(-runs=0)  # libFuzzer: max_total_time=0 would mean no limit
else
  LIMIT=(-max_total_time="$SECS")
fi
LOG="$OUT/fuzz.log"
set +e
ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$BIN" "${LIMIT[@]}" -timeout=10 "$@" -print_final_stats=1 -dict="$DICT" \
  -artifact_prefix="$OUT/" "$OUT/corpus" "$CORPUS" >"$LOG" 2>&1
rc=$?
set -e
execs="$(grep -E '^stat::number_of_executed_units' "$LOG" | awk '{print $2}')"
rate="$(grep -E '^stat::average_exec_per_sec' "$LOG" | awk '{print $2}')"
echo "$LABEL: ${execs:-unknown} executions in ${SECS}s (${rate:-?}/s, exit code $rc, log $LOG)"
# libFuzzer counts the replay of the corpora in max_total_time: a kept corpus
# that takes the whole budget to replay leaves nothing fuzzed. Say so.
inited="$(grep -m1 -oE '^#[0-9]+[[:space:]]+INITED' "$LOG" | tr -dc '0-9')"
if [[ $rc -eq 0 && "$SECS" -gt 0 && -n "$inited" && "$inited" == "${execs:-}" ]]; then
  echo "$LABEL: WARNING: the whole run replayed the corpora ($inited inputs; $(ls "$OUT/corpus" | wc -l) kept in $OUT/corpus)" \
    "and fuzzed nothing new; remove that directory, or give it more seconds"
fi
if [[ $rc -ne 0 ]]; then
  grep -E "ERROR|runtime error|SUMMARY|Test unit written|$LABEL:" "$LOG" | head -20 >&2
  exit "$rc"
fi
if [[ -n "$STAMP" ]]; then
  mkdir -p "$SLUICE_FUZZ_PASSED_DIR"
  # One stamp per fuzzer: a new binary replaces the last one's.
  rm -f "$SLUICE_FUZZ_PASSED_DIR/$NAME"-*
  echo "${execs:-?} executions in ${SECS}s at $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$STAMP"
fi
