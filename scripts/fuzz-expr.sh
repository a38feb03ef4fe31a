#!/usr/bin/env bash
# Fuzzes the expression engine (common/expr: parse + evaluate) with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz-expr.sh [seconds]     (default 60)
#
# Bazel cannot easily build with -fsanitize=fuzzer, so this compiles the engine
# sources, the generated sample.proto code and common/expr/fuzz/expr_fuzzer.cc
# directly with clang++ (flags from pkg-config) into $SLUICE_FUZZ_DIR (default
# /tmp/sluice-fuzz-expr), then runs for a bounded time from the seed corpus in
# common/expr/fuzz/corpus/. Exits non-zero on a crash (the reproducer is left in
# the build dir as crash-*); always prints the number of executions.
set -euo pipefail

SECS="${1:-60}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${SLUICE_FUZZ_DIR:-/tmp/sluice-fuzz-expr}"
mkdir -p "$OUT/gen" "$OUT/corpus" "$OUT/obj"

MODS="protobuf re2 absl_status absl_statusor absl_strings absl_str_format absl_synchronization absl_hash absl_raw_hash_set"
CXX="${CXX_FUZZ:-clang++}"
FLAGS=(-std=c++17 -O1 -g -fno-omit-frame-pointer -Wno-deprecated-declarations
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
read -r -a PKG_CFLAGS <<<"$(pkg-config --cflags $MODS)"
read -r -a PKG_LIBS <<<"$(pkg-config --libs $MODS)"

cd "$ROOT"
# Regenerate into a scratch dir and copy only on change, so objects stay fresh.
rm -rf "$OUT/gen.new" && mkdir -p "$OUT/gen.new"
/usr/bin/protoc -I. -I/usr/include --cpp_out="$OUT/gen.new" common/expr/testdata/sample.proto
for f in sample.pb.h sample.pb.cc; do
  mkdir -p "$OUT/gen/common/expr/testdata"
  if ! cmp -s "$OUT/gen.new/common/expr/testdata/$f" "$OUT/gen/common/expr/testdata/$f"; then
    cp "$OUT/gen.new/common/expr/testdata/$f" "$OUT/gen/common/expr/testdata/$f"
  fi
done

SRCS=(common/expr/access.cc common/expr/eval.cc common/expr/expr.cc common/expr/lexer.cc common/expr/parser.cc
      common/expr/value.cc common/expr/fuzz/expr_fuzzer.cc "$OUT/gen/common/expr/testdata/sample.pb.cc")
OBJS=()
for src in "${SRCS[@]}"; do
  obj="$OUT/obj/$(basename "${src%.cc}").o"
  OBJS+=("$obj")
  # Rebuild an object only when its source or any engine header is newer.
  if [[ ! -f "$obj" || "$src" -nt "$obj" || -n "$(find common/expr -name '*.h' -newer "$obj" | head -1)" ]]; then
    echo "compiling $src" >&2
    "$CXX" "${FLAGS[@]}" -I. -I"$OUT/gen" "${PKG_CFLAGS[@]}" -c "$src" -o "$obj"
  fi
done
"$CXX" -fsanitize=fuzzer,address,undefined "${OBJS[@]}" "${PKG_LIBS[@]}" -o "$OUT/expr_fuzzer"

LOG="$OUT/fuzz.log"
set +e
ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$OUT/expr_fuzzer" -max_total_time="$SECS" -max_len=1024 -timeout=10 -rss_limit_mb=2048 \
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
