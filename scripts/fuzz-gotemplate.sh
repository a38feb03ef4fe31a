#!/usr/bin/env bash
# Fuzzes the Go template engine (common/gotemplate: Siren's template language,
# parser, executor and functions under their size, depth, time and output
# budgets) with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz-gotemplate.sh [seconds]     (default 60; 0 only replays the corpus)
#
# The fuzzer is the bazel target //common/gotemplate/fuzz:gotemplate_fuzzer,
# run from the seed corpus in common/gotemplate/fuzz/corpus/ by
# scripts/fuzz-run.sh (build, sanitizer options, output lines and exit code are
# described there); what it finds is kept in $SLUICE_FUZZ_DIR (default
# /tmp/sluice-fuzz-gotemplate). Memory is capped, so a budget that stops
# working shows up as a crash.
set -euo pipefail
exec "$(dirname "$0")/fuzz-run.sh" //common/gotemplate/fuzz:gotemplate_fuzzer gotemplate "${1:-60}" \
  common/gotemplate/fuzz/corpus common/gotemplate/fuzz/gotemplate.dict \
  -max_len=4096 -rss_limit_mb=1024 -malloc_limit_mb=512
