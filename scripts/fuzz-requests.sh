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
# The fuzzer is the bazel target //server/fuzz:request_fuzzer (its sources are
# the BUILD file's deps, not a list kept here), run from the seed corpus in
# server/fuzz/corpus/ with server/fuzz/requests.dict by scripts/fuzz-run.sh
# (build, sanitizer options, output lines and exit code are described there);
# what it finds is kept in $SLUICE_FUZZ_DIR (default /tmp/sluice-fuzz-requests).
# Memory is capped (a body that makes the server allocate hundreds of MiB is a
# finding); rerun a reproducer with the printed binary and the file.
set -euo pipefail
exec "$(dirname "$0")/fuzz-run.sh" //server/fuzz:request_fuzzer requests "${1:-60}" \
  server/fuzz/corpus server/fuzz/requests.dict \
  -max_len=8192 -rss_limit_mb=2048 -malloc_limit_mb=512
