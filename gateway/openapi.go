package main

import (
	"encoding/base64"
	"net/http"
)

// openAPIDoc is the merged swagger document generated from the API protos.
var openAPIDoc = func() []byte {
	b, err := base64.StdEncoding.DecodeString(openAPIBase64)
	if err != nil {
		panic(err)
	}
	return b
}()

// serveOpenAPI answers GET /api/openapi.json.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeOtherError(w, r, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIDoc)
}
