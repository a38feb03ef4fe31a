package main

// The API reference at /docs: Redoc's standalone bundle (npm redoc, pinned in
// apidocs/package.json; build.sh copies it into the module before `go build`,
// with its one outside URL, a logo, made an empty inline image) rendering
// /api/openapi.json. Everything the page loads comes from this binary: its
// Content-Security-Policy allows nothing else.

import (
	_ "embed"
	"net/http"
)

//go:embed apidocs/redoc.standalone.js
var redocJS []byte

// apiDocsPage is the page at /docs. Its URLs are relative, so that it also
// works behind a proxy that serves the gateway under a path prefix.
const apiDocsPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sluice API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<redoc spec-url="api/openapi.json" hide-hostname="true"></redoc>
<script src="docs/redoc.standalone.js"></script>
</body>
</html>
`

// apiDocsCSP: scripts and data from this origin only; Redoc styles inline
// (styled-components) and runs its search index in a blob: worker.
const apiDocsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// serveAPIDocs answers GET /docs (the page) and GET /docs/redoc.standalone.js;
// /docs/ redirects to /docs, where the page's relative URLs resolve.
func serveAPIDocs(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeOtherError(w, r, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	switch r.URL.Path {
	case "/docs":
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", apiDocsCSP)
		h.Set("Cache-Control", "no-cache")
		_, _ = w.Write([]byte(apiDocsPage))
	case "/docs/":
		http.Redirect(w, r, "../docs", http.StatusMovedPermanently)
	case "/docs/redoc.standalone.js":
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=3600")
		_, _ = w.Write(redocJS)
	default:
		writeOtherError(w, r, http.StatusText(http.StatusNotFound), http.StatusNotFound)
	}
}
