#!/usr/bin/env bash
# Test setup + run: installs the pinned official clients (idempotent, see
# scripts/install-npm-deps.sh), then runs official_clients_test.js with
# node's test runner against a fresh integration/gcp_fake.
set -euo pipefail
root="${TEST_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}/${TEST_WORKSPACE:-}"
[ -d "$root/scripts" ] || root="$(cd "$(dirname "$0")/../../.." && pwd)"
modules="$("$root/scripts/install-npm-deps.sh")"
export NODE_PATH="$modules"
exec node --test --test-reporter=spec "$root/integration/gcp_fake/clients/official_clients_test.js"
