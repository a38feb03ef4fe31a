#!/usr/bin/env bash
# `make test`: install deps, build everything, run every test against a private
# PostgreSQL (stopped even on failure), run the bounded fuzzers, build the
# docs site (scripts/docs.sh), and print
# one summary line "N passed, N failed" counting test cases. Exits non-zero
# on any failure.
#
# It also prints each phase's time (deps, build, tests, fuzzers) and warns,
# without failing, when the build phase ran on a cold disk cache and took
# longer than the budget in docs/build.md ("cold_build_budget_s = N").
# With SLUICE_PROFILE_DIR set, each bazel phase writes its profile there
# (build.profile.gz, test.profile.gz, fuzz.profile.gz) for
# `bazel analyze-profile` (docs/build.md "How it was measured").
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
start=$(date +%s)

./scripts/install-deps.sh || exit 1
t_deps=$(( $(date +%s) - start ))

# Cold means the disk cache of .bazelrc holds nothing yet: every action runs.
disk_cache="$HOME/.cache/sluice-bazel-disk"
cold=warm
if [ -z "$(ls -A "$disk_cache" 2>/dev/null)" ]; then cold=cold; fi

t=$(date +%s)
echo "== build ($cold disk cache)"
profile() { [ -n "${SLUICE_PROFILE_DIR:-}" ] && echo "--profile=$SLUICE_PROFILE_DIR/$1.profile.gz"; }
if [ -n "${SLUICE_PROFILE_DIR:-}" ]; then mkdir -p "$SLUICE_PROFILE_DIR"; fi
if ! bazel build //... $(profile build); then
  echo "build failed"
  echo "0 passed, 1 failed"
  exit 1
fi
t_build=$(( $(date +%s) - t ))

t=$(date +%s)
echo "== test (private PostgreSQL)"
export SLUICE_TEST_TMP="${TMPDIR:-/tmp}"
./scripts/with-postgres.sh bazel test //... --test_output=errors $(profile test)
bazel_rc=$?
t_tests=$(( $(date +%s) - t ))

t=$(date +%s)
extra_pass=0
extra_fail=0
# One bazel invocation builds all four fuzzers (--config=fuzz, clang); the
# scripts then find them up to date.
echo "== fuzz: build"
if ! SLUICE_FUZZ_BAZEL_FLAGS="$(profile fuzz)" ./scripts/fuzz-build.sh //common/expr/fuzz:expr_fuzzer //server/fuzz:request_fuzzer \
    //server/notification/core/fuzz:template_fuzzer //common/gotemplate/fuzz:gotemplate_fuzzer >/dev/null; then
  echo "FAILED: fuzzer build"
  extra_fail=$((extra_fail + 1))
else
  # The request fuzzer drives the in-process gRPC services, whose threads
  # want both cores: it runs alone (next to another fuzzer it made a third of
  # its executions). The three single-threaded fuzzers then run two at a
  # time, one per core, each still for its full SLUICE_FUZZ_SECONDS.
  # A fuzzer whose binary, seed corpus and flags already ran clean is skipped
  # (scripts/fuzz-run.sh; SLUICE_FUZZ_ALWAYS=1 runs every one).
  export SLUICE_FUZZ_PASSED_DIR="${SLUICE_FUZZ_PASSED_DIR:-$HOME/.cache/sluice-fuzz-passed}"
  fuzz_out="$(mktemp -d)"
  one() { n="$(basename "$1" .sh)"; "$1" "$2" >"$3/$n.log" 2>&1; echo $? >"$3/$n.rc"; }
  export -f one
  one scripts/fuzz-requests.sh "${SLUICE_FUZZ_SECONDS:-60}" "$fuzz_out"
  printf '%s\n' scripts/fuzz-expr.sh scripts/fuzz-template.sh scripts/fuzz-gotemplate.sh |
    xargs -P 2 -I{} bash -c 'one "$@"' _ {} "${SLUICE_FUZZ_SECONDS:-60}" "$fuzz_out"
  for fuzz in scripts/fuzz-expr.sh scripts/fuzz-requests.sh scripts/fuzz-template.sh scripts/fuzz-gotemplate.sh; do
    n="$(basename "$fuzz" .sh)"
    echo "== fuzz: $fuzz (${SLUICE_FUZZ_SECONDS:-60}s)"
    cat "$fuzz_out/$n.log"
    if [ "$(cat "$fuzz_out/$n.rc" 2>/dev/null)" = 0 ]; then
      extra_pass=$((extra_pass + 1))
    else
      echo "FAILED: $fuzz"
      extra_fail=$((extra_fail + 1))
    fi
  done
  rm -rf "$fuzz_out"
fi
t_fuzz=$(( $(date +%s) - t ))

# The docs site (make docs): a broken link, anchor or page fails it.
echo "== docs: make docs"
if ./scripts/docs.sh >"${TMPDIR:-/tmp}/sluice-docs.log" 2>&1; then
  extra_pass=$((extra_pass + 1))
  tail -1 "${TMPDIR:-/tmp}/sluice-docs.log"
else
  cat "${TMPDIR:-/tmp}/sluice-docs.log"
  echo "FAILED: make docs (scripts/docs.sh)"
  extra_fail=$((extra_fail + 1))
fi

# The images from this build's (fastbuild) binaries, under sluice-test/ so a
# `make images` result is left alone, and the stack run from them
# (scripts/images/test.sh). Skipped, with one line, where images cannot be built.
t=$(date +%s)
why=""
for tool in buildah mmdebstrap unshare ip; do
  command -v "$tool" >/dev/null || { why="$tool is not installed"; break; }
done
if [ -z "$why" ] && ! unshare -n true 2>/dev/null; then why="network namespaces are denied (unshare -n)"; fi
if [ -z "$why" ]; then
  c="$(buildah from scratch 2>/dev/null)" && buildah rm "$c" >/dev/null 2>&1 || why="buildah cannot create a container here"
fi
if [ -n "$why" ]; then
  echo "== images: SKIPPED: $why"
else
  echo "== images: build + stack test"
  if SLUICE_IMAGE_REPO=sluice-test SLUICE_IMAGE_BINDIR="$(bazel info bazel-bin 2>/dev/null)" ./scripts/images/build.sh &&
     SLUICE_IMAGE_REPO=sluice-test ./scripts/images/test.sh; then
    extra_pass=$((extra_pass + 1))
  else
    echo "FAILED: images (scripts/images/build.sh + test.sh)"
    extra_fail=$((extra_fail + 1))
  fi
fi
t_images=$(( $(date +%s) - t ))

echo "== phases: deps ${t_deps}s, build ${t_build}s ($cold disk cache), tests ${t_tests}s, fuzzers ${t_fuzz}s, images ${t_images}s"
budget="$(sed -n 's/.*cold_build_budget_s = \([0-9][0-9]*\).*/\1/p' docs/build.md 2>/dev/null | head -1)"
if [ "$cold" = cold ] && [ -n "$budget" ] && [ "$t_build" -gt "$budget" ]; then
  echo "WARNING: the cold build phase took ${t_build}s, over the ${budget}s budget in docs/build.md;" \
       "profile it (docs/build.md says how) before adding more."
fi
python3 scripts/test_summary.py "$root" "$bazel_rc" "$extra_pass" "$extra_fail"
summary_rc=$?
total=$(( $(date +%s) - start ))
echo "== make test took ${total}s"
if [ "$bazel_rc" -ne 0 ] || [ "$extra_fail" -ne 0 ] || [ "$summary_rc" -ne 0 ]; then
  exit 1
fi
exit 0
