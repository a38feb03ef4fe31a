package main

import (
	"fmt"
	"log"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

// logRequests writes one access-log line per request: method, path, status, duration.
func logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		log.Printf("%s %s %d %s", r.Method, r.URL.Path, rec.code, time.Since(start).Round(time.Microsecond))
	})
}

// writeGuard refuses the writes a browser can be made to send on a user's
// behalf (CSRF behind a cookie-authenticated auth proxy; security review
// round 2, F-M2). It applies to every method but GET, HEAD and OPTIONS:
//
//   - A request with an Origin header is accepted only when that origin is
//     in allowedOrigins (--allowed_origins; empty: no cross-origin writes),
//     else 403 (PERMISSION_DENIED). Without an Origin, Sec-Fetch-Site:
//     cross-site is refused the same way.
//   - A request with a body must say Content-Type: application/json
//     (parameters allowed, charset only utf-8), else 415 (INVALID_ARGUMENT).
//     An HTML form can only send application/x-www-form-urlencoded,
//     multipart/form-data or text/plain, and anything else from another
//     origin needs a CORS pre-flight, which this gateway never grants.
//
// A body is present when Content-Length > 0 or the length is unknown
// (chunked). An empty write (Content-Length: 0) is accepted whatever its
// Content-Type: there is nothing to decode, and from a browser on another
// site it still carries an Origin, which the first rule refuses.
func writeGuard(allowedOrigins map[string]bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		if refuseWrite(w, r, allowedOrigins, contentTypeRefusal) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuseWrite answers r and returns true when it comes from an origin that
// may not write (403) or its body has a content type `typeRefusal` refuses
// (415, with typeRefusal's reason); false: r may go on.
func refuseWrite(w http.ResponseWriter, r *http.Request, allowedOrigins map[string]bool,
	typeRefusal func(*http.Request) string) bool {
	if msg := crossOriginRefusal(allowedOrigins, r); msg != "" {
		writeStatusWithHTTP(w, status.New(codes.PermissionDenied, msg), http.StatusForbidden)
		return true
	}
	if msg := typeRefusal(r); msg != "" {
		writeStatusWithHTTP(w, status.New(codes.InvalidArgument, msg), http.StatusUnsupportedMediaType)
		return true
	}
	return false
}

// crossOriginRefusal is "" when r may write from where it comes, else why not.
func crossOriginRefusal(allowed map[string]bool, r *http.Request) string {
	origins := r.Header.Values("Origin")
	if len(origins) > 1 {
		return "more than one Origin header"
	}
	if len(origins) == 1 {
		origin := strings.ToLower(strings.TrimSpace(origins[0]))
		if allowed[origin] {
			return ""
		}
		return fmt.Sprintf("cross-origin write from %q refused: the origin is not in the gateway's "+
			"--allowed_origins (SLUICE_ALLOWED_ORIGINS)", origins[0])
	}
	if strings.EqualFold(strings.TrimSpace(r.Header.Get("Sec-Fetch-Site")), "cross-site") {
		return "cross-site write refused (Sec-Fetch-Site: cross-site without an allowed Origin)"
	}
	return ""
}

// contentTypeRefusal is "" when r's body is JSON (or r has none), else why not.
func contentTypeRefusal(r *http.Request) string {
	if r.ContentLength == 0 {
		return "" // nothing to decode, whatever curl -d '' or a client library declared
	}
	types := r.Header.Values("Content-Type")
	if len(types) > 1 {
		return "more than one Content-Type header; send one: Content-Type: application/json"
	}
	if len(types) == 0 {
		return "a request body needs Content-Type: application/json"
	}
	mediaType, params, err := mime.ParseMediaType(types[0])
	if err == nil && mediaType == "application/json" {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return ""
		}
	}
	return fmt.Sprintf("Content-Type %q is not accepted: send the body as JSON with "+
		"Content-Type: application/json", types[0])
}

// parseAllowedOrigins reads --allowed_origins: comma-separated origins,
// each scheme://host[:port] (http or https, no path, no "*" or "null"),
// compared case-insensitively with the request's Origin header.
func parseAllowedOrigins(list string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		o := strings.TrimSpace(item)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" ||
			strings.Contains(u.Host, "*") {
			return nil, fmt.Errorf("--allowed_origins: %q is not an origin (scheme://host[:port], "+
				"http or https, no path, no wildcard)", o)
		}
		out[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return out, nil
}
