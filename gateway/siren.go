package main

import (
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// sirenPart2Paths are Siren's v1beta1 route families that Sluice does not
// serve yet (issue #30 part 2): alert providers, namespaces and rules. The
// rest of Siren's API is served at its own paths (proto/sluice/siren/...).
var sirenPart2Paths = []string{"/v1beta1/providers", "/v1beta1/namespaces", "/v1beta1/rules"}

// sirenPart2Handler answers those paths with 501 / UNIMPLEMENTED naming what
// is missing, instead of a bare 404; Guardian's access providers stay at
// /api/v1beta1/providers.
func sirenPart2Handler(w http.ResponseWriter, r *http.Request) {
	writeStatusWithHTTP(w, status.New(codes.Unimplemented,
		"Siren alert providers, namespaces and rules (Siren drop-in part 2): not yet served; "+
			"/api/v1beta1/providers is Sluice's access (Guardian) providers API"),
		http.StatusNotImplemented)
}
