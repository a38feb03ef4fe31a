#!/usr/bin/env bash
# Fuzzes the JSON bodies of the access and notification APIs' write routes
# (appeals, approvals, policies, providers, receivers, subscriptions,
# templates, notifications, alerts) through the core services that their
# gRPC handlers call, with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer. See server/fuzz/request_fuzzer.cc for the input
# format and what counts as a failure.
#
#   scripts/fuzz-requests.sh [seconds]     (default 60; 0 only replays the corpus)
#
# Like scripts/fuzz-expr.sh, this compiles directly with clang++ (flags from
# pkg-config) into $SLUICE_FUZZ_DIR (default /tmp/sluice-fuzz-requests): the
# C++ of the API protos (and of google/api, which they import), generated
# with /usr/bin/protoc exactly as tools/proto.bzl does, the access and
# notification cores, the receiver types, the notification API's proto
# conversions, the in-memory fakes and the fuzzer. An object is rebuilt only
# when its source, or a header the compiler read for it (its -MMD depfile),
# is newer, or when the compile flags changed, so a warm run only links if
# needed and fuzzes. Then it runs for a bounded time from the seed corpus in
# server/fuzz/corpus/ with server/fuzz/requests.dict, with memory capped (a
# body that makes the server allocate hundreds of MiB is a finding). Exits
# non-zero on a crash (the reproducer is left in the build dir as
# crash-*/oom-*/timeout-*; rerun it with `$SLUICE_FUZZ_DIR/request_fuzzer
# <file>`); always prints the number of executions.
set -euo pipefail

SECS="${1:-60}"
if [[ ! "$SECS" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [seconds]" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${SLUICE_FUZZ_DIR:-/tmp/sluice-fuzz-requests}"
mkdir -p "$OUT/gen" "$OUT/corpus" "$OUT/obj"

MODS="protobuf re2 libcurl libcrypto spdlog nlohmann_json absl_status absl_statusor absl_strings
      absl_str_format absl_synchronization absl_time absl_hash absl_raw_hash_set absl_flat_hash_map"
CXX="${CXX_FUZZ:-clang++}"
JOBS="${SLUICE_FUZZ_JOBS:-$(nproc)}"
FLAGS=(-std=c++17 -O1 -g -fno-omit-frame-pointer -Wno-deprecated-declarations
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
# The generated protobuf code is protoc's, not ours, and JSON parsing runs in
# (uninstrumented) libprotobuf's reflection: optimizing and instrumenting it
# for coverage took three quarters of a cold build and bought no speed or
# findings. ASan stays on for its heap bookkeeping.
GEN_FLAGS=(-std=c++17 -O0 -g1 -fno-omit-frame-pointer -Wno-deprecated-declarations
           -fsanitize=address)
read -r -a PKG_CFLAGS <<<"$(pkg-config --cflags $MODS)"
read -r -a PKG_LIBS <<<"$(pkg-config --libs $MODS)"

cd "$ROOT"
start=$(date +%s)

# Regenerate into a scratch dir and copy only on change, so objects stay fresh.
# Include paths and file arguments as in tools/proto.bzl (googleapis files by
# their import path).
PROTOS=(proto/sluice/access/v1beta1/access.proto proto/sluice/access/v1beta1/appeal.proto
        proto/sluice/notification/v1beta1/notification.proto
        google/api/annotations.proto google/api/http.proto)
rm -rf "$OUT/gen.new" && mkdir -p "$OUT/gen.new"
/usr/bin/protoc -I. -Ithird_party/googleapis -I/usr/include --cpp_out="$OUT/gen.new" "${PROTOS[@]}"
GEN_SRCS=()
while IFS= read -r f; do
  rel="${f#"$OUT/gen.new/"}"
  mkdir -p "$(dirname "$OUT/gen/$rel")"
  if ! cmp -s "$f" "$OUT/gen/$rel"; then cp "$f" "$OUT/gen/$rel"; fi
  [[ "$rel" == *.cc ]] && GEN_SRCS+=("$OUT/gen/$rel")
done < <(find "$OUT/gen.new" -type f | sort)

# Every source of the access core (a new file there needs no edit here).
ACCESS_CORE_SRCS=()
for f in server/access/core/*.cc; do
  [[ "$f" == *_test.cc ]] || ACCESS_CORE_SRCS+=("$f")
done
SRCS=(
  common/crypto.cc common/deadline.cc common/http_client.cc common/outbound.cc
  common/expr/access.cc common/expr/eval.cc common/expr/expr.cc common/expr/lexer.cc
  common/expr/parser.cc common/expr/value.cc
  "${ACCESS_CORE_SRCS[@]}" server/access/providers/noop/noop_provider.cc
  server/notification/api/convert.cc
  server/notification/core/catalog.cc server/notification/core/delivery.cc
  server/notification/core/labels.cc server/notification/core/notify.cc
  server/notification/core/template_engine.cc
  server/notification/receivers/registry.cc server/notification/receivers/file/file_receiver.cc
  server/notification/receivers/http/http_receiver.cc
  server/notification/receivers/pagerduty/pagerduty_receiver.cc
  server/notification/receivers/slack/slack_receiver.cc
  server/fuzz/request_fixtures.cc server/fuzz/request_fuzzer.cc
  "${GEN_SRCS[@]}"
)

# The object of a source: its path with / as _ (sources share basenames).
obj_of() {
  local rel="${1#"$OUT/"}"
  echo "$OUT/obj/${rel//\//_}.o"
}

# True when $1 (an object) must be rebuilt from $2: missing, older than its
# source, or older than (or missing) a file its depfile lists.
stale() {
  local obj="$1" src="$2" f
  [[ -f "$obj" && -f "$obj.d" && ! "$src" -nt "$obj" ]] || return 0
  for f in $(sed -e 's/\\$//' -e '1s/^[^:]*://' "$obj.d"); do
    [[ -e "$f" && ! "$f" -nt "$obj" ]] || return 0
  done
  return 1
}

compile() {
  local src="$1" obj flags=("${FLAGS[@]}")
  obj="$(obj_of "$src")"
  [[ "$src" == "$OUT/gen/"* ]] && flags=("${GEN_FLAGS[@]}")
  echo "compiling $src" >&2
  "$CXX" "${flags[@]}" -I. -I"$OUT/gen" "${PKG_CFLAGS[@]}" -MMD -MF "$obj.d" -c "$src" -o "$obj"
}

OBJS=()
for src in "${SRCS[@]}"; do OBJS+=("$(obj_of "$src")"); done
# Objects built with other flags, another compiler or from another checkout
# (a worktree's older source can be older than an object built from a newer
# one) are all stale. (Only this fuzzer's: the other fuzz scripts may share
# $SLUICE_FUZZ_DIR.)
FLAGS_ID="$ROOT $("$CXX" --version | head -1) ${FLAGS[*]} ${GEN_FLAGS[*]} ${PKG_CFLAGS[*]}"
if [[ "$(cat "$OUT/obj/request_fuzzer.flags" 2>/dev/null)" != "$FLAGS_ID" ]]; then
  for obj in "${OBJS[@]}"; do rm -f "$obj" "$obj.d"; done
  printf '%s' "$FLAGS_ID" >"$OUT/obj/request_fuzzer.flags"
fi
TODO=()
for src in "${SRCS[@]}"; do
  if stale "$(obj_of "$src")" "$src"; then TODO+=("$src"); fi
done
# $JOBS compilers at a time; any failure stops the script after the others end.
failed=0
running=0
for src in "${TODO[@]}"; do
  if ((running >= JOBS)); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  compile "$src" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || failed=1
  running=$((running - 1))
done
if ((failed)); then
  echo "request fuzzer: compilation failed" >&2
  exit 1
fi
BIN="$OUT/request_fuzzer"
if [[ ! -x "$BIN" || ${#TODO[@]} -gt 0 ]]; then
  "$CXX" -fsanitize=fuzzer,address,undefined "${OBJS[@]}" "${PKG_LIBS[@]}" -o "$BIN"
fi
echo "request fuzzer: built in $(($(date +%s) - start))s (${#TODO[@]} of ${#SRCS[@]} objects compiled)"

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
