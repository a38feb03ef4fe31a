#!/usr/bin/env bash
# Builds libFuzzer targets with bazel's --config=fuzz (clang + ASan + UBSan)
# and prints each binary's path, one a line:
#
#   scripts/fuzz-build.sh //server/fuzz:request_fuzzer [more targets]
#
# The fuzz build runs in its own output base (a second bazel server, idle-timed
# out after 2 minutes), so switching the C++ toolchain to clang never
# reconfigures the gcc build of `make test`; both share the disk cache in
# .bazelrc, so a fresh clone on a machine that fuzzed before rebuilds nothing.
# SLUICE_FUZZ_OUTPUT_BASE overrides the output base; SLUICE_FUZZ_BAZEL_FLAGS
# adds flags to the build (make test's --profile).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
[ "$#" -gt 0 ] || { echo "usage: $0 TARGET..." >&2; exit 2; }
key="$(printf '%s' "$ROOT" | md5sum | cut -c1-12)"
base="${SLUICE_FUZZ_OUTPUT_BASE:-$HOME/.cache/sluice-bazel-fuzz/$key}"
bz=(bazel --output_base="$base" --max_idle_secs=120)
# shellcheck disable=SC2086  # the flags are words
"${bz[@]}" build --config=fuzz ${SLUICE_FUZZ_BAZEL_FLAGS:-} "$@" >&2
bin="$("${bz[@]}" info --config=fuzz bazel-bin 2>/dev/null)"
for t in "$@"; do
  pkg="${t#//}"; pkg="${pkg%%:*}"
  echo "$bin/$pkg/${t##*:}"
done
