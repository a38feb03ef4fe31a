#!/usr/bin/env bash
# Fuzzes notification template validation and rendering
# (server/notification/core/template_engine.cc: Sluice's limits, then the
# kainjow Mustache parser and renderer) with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer.
#
#   scripts/fuzz-template.sh [seconds]     (default 60)
#
# Like scripts/fuzz-expr.sh, this compiles the engine and
# server/notification/core/fuzz/template_fuzzer.cc directly with clang++
# (flags from pkg-config) into $SLUICE_FUZZ_DIR (default
# /tmp/sluice-fuzz-template), then runs for a bounded time from the seed
# corpus in server/notification/core/fuzz/corpus/. Memory is capped well
# below what the unbounded parser needed for deep nesting (review H2), so a
# limit that stops working shows up as a crash. Exits non-zero on a crash
# (the reproducer is left in the build dir as crash-*/oom-*/timeout-*);
# always prints the number of executions.
set -euo pipefail

SECS="${1:-60}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${SLUICE_FUZZ_DIR:-/tmp/sluice-fuzz-template}"
mkdir -p "$OUT/corpus" "$OUT/obj"

MODS="absl_status absl_statusor absl_strings absl_str_format absl_time nlohmann_json"
CXX="${CXX_FUZZ:-clang++}"
FLAGS=(-std=c++17 -O1 -g -fno-omit-frame-pointer -Wno-deprecated-declarations
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
read -r -a PKG_CFLAGS <<<"$(pkg-config --cflags $MODS)"
read -r -a PKG_LIBS <<<"$(pkg-config --libs $MODS)"

cd "$ROOT"
SRCS=(server/notification/core/template_engine.cc server/notification/core/fuzz/template_fuzzer.cc)
HDRS=(server/notification/core/template_engine.h server/notification/core/model.h)
OBJS=()
for src in "${SRCS[@]}"; do
  obj="$OUT/obj/$(basename "${src%.cc}").o"
  OBJS+=("$obj")
  # Rebuild an object only when its source or a header it uses is newer.
  stale=0
  [[ ! -f "$obj" || "$src" -nt "$obj" ]] && stale=1
  for h in "${HDRS[@]}"; do [[ "$h" -nt "$obj" ]] && stale=1; done
  if [[ $stale -eq 1 ]]; then
    echo "compiling $src" >&2
    "$CXX" "${FLAGS[@]}" -I. "${PKG_CFLAGS[@]}" -c "$src" -o "$obj"
  fi
done
"$CXX" -fsanitize=fuzzer,address,undefined "${OBJS[@]}" "${PKG_LIBS[@]}" -o "$OUT/template_fuzzer"

LOG="$OUT/fuzz.log"
set +e
ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$OUT/template_fuzzer" -max_total_time="$SECS" -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
  -malloc_limit_mb=512 -print_final_stats=1 -dict=server/notification/core/fuzz/template.dict \
  -artifact_prefix="$OUT/" "$OUT/corpus" server/notification/core/fuzz/corpus >"$LOG" 2>&1
rc=$?
set -e
execs="$(grep -E '^stat::number_of_executed_units' "$LOG" | awk '{print $2}')"
echo "template fuzzer: ${execs:-unknown} executions in ${SECS}s (exit code $rc, log $LOG)"
if [[ $rc -ne 0 ]]; then
  grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$LOG" | head -20 >&2
  exit "$rc"
fi
