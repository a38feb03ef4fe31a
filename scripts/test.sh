#!/usr/bin/env bash
# `make test`: install deps, build everything, run every test against a private
# PostgreSQL (stopped even on failure), run the bounded fuzzers, and print
# one summary line "N passed, N failed" counting test cases. Exits non-zero
# on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

./scripts/install-deps.sh || exit 1

start=$(date +%s)
echo "== build"
if ! bazel build //...; then
  echo "build failed"
  echo "0 passed, 1 failed"
  exit 1
fi

echo "== test (private PostgreSQL)"
export SLUICE_TEST_TMP="${TMPDIR:-/tmp}"
./scripts/with-postgres.sh bazel test //... --test_output=errors
bazel_rc=$?

extra_pass=0
extra_fail=0
for fuzz in scripts/fuzz-*.sh; do
  [ -e "$fuzz" ] || continue
  echo "== fuzz: $fuzz (${SLUICE_FUZZ_SECONDS:-60}s)"
  if "$fuzz" "${SLUICE_FUZZ_SECONDS:-60}"; then
    extra_pass=$((extra_pass + 1))
  else
    echo "FAILED: $fuzz"
    extra_fail=$((extra_fail + 1))
  fi
done

python3 scripts/test_summary.py "$root" "$bazel_rc" "$extra_pass" "$extra_fail"
summary_rc=$?
echo "== make test took $(( $(date +%s) - start ))s"
if [ "$bazel_rc" -ne 0 ] || [ "$extra_fail" -ne 0 ] || [ "$summary_rc" -ne 0 ]; then
  exit 1
fi
exit 0
