#!/usr/bin/env bash
# Fuzzes notification template validation and rendering
# (server/notification/core/template_engine.cc: Sluice's limits, then the
# kainjow Mustache parser and renderer) with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer.
#
#   scripts/fuzz-template.sh [seconds]     (default 60; 0 only replays the corpus)
#
# The fuzzer is the bazel target
# //server/notification/core/fuzz:template_fuzzer, run from the seed corpus in
# server/notification/core/fuzz/corpus/ by scripts/fuzz-run.sh (build,
# sanitizer options, output lines and exit code are described there); what it
# finds is kept in $SLUICE_FUZZ_DIR (default /tmp/sluice-fuzz-template). Memory
# is capped well below what the unbounded parser needed for deep nesting
# (review H2), so a limit that stops working shows up as a crash.
set -euo pipefail
exec "$(dirname "$0")/fuzz-run.sh" //server/notification/core/fuzz:template_fuzzer template "${1:-60}" \
  server/notification/core/fuzz/corpus server/notification/core/fuzz/template.dict \
  -max_len=4096 -rss_limit_mb=1024 -malloc_limit_mb=512
