#!/usr/bin/env bash
# Fuzzes the expression engine (common/expr: parse + evaluate) with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz-expr.sh [seconds]     (default 60; 0 only replays the corpus)
#
# The fuzzer is the bazel target //common/expr/fuzz:expr_fuzzer, run from the
# seed corpus in common/expr/fuzz/corpus/ by scripts/fuzz-run.sh (build,
# sanitizer options, output lines and exit code are described there); what it
# finds is kept in $SLUICE_FUZZ_DIR (default /tmp/sluice-fuzz-expr).
set -euo pipefail
exec "$(dirname "$0")/fuzz-run.sh" //common/expr/fuzz:expr_fuzzer expr "${1:-60}" \
  common/expr/fuzz/corpus common/expr/fuzz/expr.dict \
  -max_len=1024 -rss_limit_mb=2048
