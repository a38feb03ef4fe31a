#!/usr/bin/env bash
# `make docs`: builds docs/ into a static site in site/ with mkdocs (pinned,
# installed by scripts/install-mkdocs.sh), strictly: a link to a missing page,
# anchor or source file fails the build. Prints the page count and the
# warnings (0 when it succeeds). Open site/index.html, or serve it with
# `python3 -m http.server -d site`.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(./scripts/install-mkdocs.sh)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
"$bin/mkdocs" build --strict --clean -f mkdocs.yml 2>&1 | tee "$log" || status=$?
pages=$(find site -name '*.html' ! -name '404.html' ! -name 'search.html' 2>/dev/null | wc -l)
warnings=$(grep -c '^WARNING' "$log" || true)
if [ "$status" -ne 0 ]; then
  echo "docs: FAILED, $warnings warning(s) (broken links, anchors or pages above)" >&2
  exit "$status"
fi
echo "docs: $pages pages in site/, $warnings warnings, 0 broken links"
