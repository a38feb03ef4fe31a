#!/usr/bin/env bash
# Test setup + run: installs the pinned official clients (idempotent, see
# scripts/install-npm-deps.sh), then runs a test file of this folder ($1,
# default official_clients_test.js: Google's clients against a fresh
# integration/gcp_fake; logging_official_client_test.js: @google-cloud/logging
# against its Cloud Logging entries.list; es_official_client_test.js: Elastic's client against
# integration/es_fake; slack_official_client_test.js: @slack/web-api against
# integration/slack_fake; slack_signing_test.js: integration/slack_fake's
# request signing against @slack/bolt's verifier;
# lark_official_client_test.js: @larksuiteoapi/node-sdk against
# integration/lark_fake) with node's test runner.
set -euo pipefail
root="${TEST_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}/${TEST_WORKSPACE:-}"
[ -d "$root/scripts" ] || root="$(cd "$(dirname "$0")/../../.." && pwd)"
modules="$("$root/scripts/install-npm-deps.sh")"
export NODE_PATH="$modules"
reporters=(--test-reporter=spec --test-reporter-destination=stdout)
# One JUnit case per test for bazel's test.xml (node >= 20.11 has the junit reporter).
if [ -n "${XML_OUTPUT_FILE:-}" ] && node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a==20&&b>=11)?0:1)'; then
  reporters+=(--test-reporter=junit "--test-reporter-destination=$XML_OUTPUT_FILE")
fi
exec node --test "${reporters[@]}" "$root/integration/gcp_fake/clients/${1:-official_clients_test.js}"
