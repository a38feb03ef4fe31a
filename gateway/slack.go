package main

// Slack's interactivity requests (issue 44): the Approve and Reject buttons
// of approver notifications, and the reject-reason modal, make Slack POST to
// the app's interactivity URL. This handler forwards each request, as
// received, to sluice-server's SlackInteractionService/HandleInteraction,
// which checks Slack's v0 signature and acts.
//
// It is not a transcoded route: Slack posts a form (`payload=<JSON>`), and
// the signature covers the exact bytes, so the body travels unparsed. Its
// rules, in order:
//
//   - POST only, else 405 (UNIMPLEMENTED), as a wrong method elsewhere.
//   - The writeGuard's Origin / Sec-Fetch-Site refusal (403). Slack sends
//     neither; a browser on another site sends one.
//   - Content-Type: application/x-www-form-urlencoded (charset only utf-8),
//     else 415 (INVALID_ARGUMENT) naming the type. This path alone accepts a
//     form: its credential is Slack's signature, which a forged form cannot
//     carry, not an identity the auth proxy puts on a browser's request.
//   - A body of at most slackMaxBodyBytes, else 413 (RESOURCE_EXHAUSTED).
//
// The call carries the hop proof (x-sluice-proxy-token) and nothing of the
// HTTP request's headers but the two Slack signature headers, copied into
// the request message: in particular no identity header, whatever the
// request carries. The caller is Slack, proven by its signature.
//
// Slack's side: https://api.slack.com/interactivity/handling (the request,
// and the 3-second answer) and https://api.slack.com/authentication/verifying-requests-from-slack
// (the headers).

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	slackv1 "sluice/gateway/gen/sluice/slack/v1"
)

// slackMaxBodyBytes bounds an interaction's body. Slack's payloads are a few
// KiB (a block_actions payload carries the message it came from, at most 50
// blocks); 1 MiB leaves room and bounds what an unsigned caller can make the
// gateway hold.
const slackMaxBodyBytes = 1 << 20

// slackFormType is the one Content-Type Slack posts interactions with.
const slackFormType = "application/x-www-form-urlencoded"

// checkSlackInteractionsPath validates --slack_interactions_path: "" (off),
// or an absolute path with no trailing slash, query or fragment that does
// not shadow the gateway's own paths or the API's /api/ routes.
func checkSlackInteractionsPath(path string) error {
	if path == "" {
		return nil
	}
	bad := !strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") ||
		strings.ContainsAny(path, "?#%{} \t") || strings.Contains(path, "//")
	if !bad {
		switch {
		case path == "/api" || strings.HasPrefix(path, "/api/"),
			path == "/docs" || strings.HasPrefix(path, "/docs/"),
			path == "/healthz", path == "/ping":
			return fmt.Errorf("--slack_interactions_path %q would shadow the gateway's own paths", path)
		}
		return nil
	}
	return fmt.Errorf("--slack_interactions_path %q is not a path like /slack/interactions "+
		"(absolute, no trailing slash, query or fragment; empty to disable)", path)
}

// slackInteractionsHandler serves `route` (--slack_interactions_path) as the
// file comment says, calling client with proxyToken ("" : none) as the hop
// proof. allowedOrigins is --allowed_origins, as for the writeGuard.
func slackInteractionsHandler(route string, allowedOrigins map[string]bool, proxyToken string,
	client slackv1.SlackInteractionServiceClient) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		span := trace.SpanFromContext(r.Context())
		span.SetAttributes(attribute.String("http.route", route))
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeOtherError(w, r, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
			return
		}
		if refuseWrite(w, r, allowedOrigins, slackContentTypeRefusal) {
			return
		}
		body, st, httpCode := readSlackBody(w, r)
		if st != nil {
			writeStatusWithHTTP(w, st, httpCode)
			return
		}

		// A fresh outgoing context: only the hop proof, never a header of
		// the HTTP request (the mux's headerMatcher does not run here).
		ctx := metadata.NewOutgoingContext(r.Context(), metadata.MD{})
		if proxyToken != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, proxyTokenMetadata, proxyToken)
		}
		resp, err := client.HandleInteraction(ctx, &slackv1.HandleInteractionRequest{
			Body:      body,
			Timestamp: r.Header.Get("X-Slack-Request-Timestamp"),
			Signature: r.Header.Get("X-Slack-Signature"),
		})
		if err != nil {
			writeStatus(w, status.Convert(err))
			return
		}
		if resp.GetResponseJson() == "" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, resp.GetResponseJson())
	})
}

// slackContentTypeRefusal is "" when r says Content-Type:
// application/x-www-form-urlencoded (parameters allowed, charset only
// utf-8), else why not. Unlike the writeGuard's rule, an empty body needs it
// too: Slack never posts one.
func slackContentTypeRefusal(r *http.Request) string {
	types := r.Header.Values("Content-Type")
	if len(types) > 1 {
		return "more than one Content-Type header; send one: Content-Type: " + slackFormType
	}
	if len(types) == 0 {
		return "a Slack interaction needs Content-Type: " + slackFormType
	}
	mediaType, params, err := mime.ParseMediaType(types[0])
	if err == nil && mediaType == slackFormType {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return ""
		}
	}
	return fmt.Sprintf("Content-Type %q is not accepted: Slack interactions are posted with "+
		"Content-Type: %s", types[0], slackFormType)
}

// readSlackBody reads r's whole body, at most slackMaxBodyBytes: the bytes,
// or the status to answer with and its HTTP code (413 when the body is
// larger, declared up front or found while reading; 400 when it cannot be
// read).
func readSlackBody(w http.ResponseWriter, r *http.Request) ([]byte, *status.Status, int) {
	tooLarge := func(size string) (*status.Status, int) {
		return status.New(codes.ResourceExhausted, "request body of "+size+" exceeds the limit of "+
			strconv.Itoa(slackMaxBodyBytes)+" bytes for Slack interactions"), http.StatusRequestEntityTooLarge
	}
	if r.ContentLength > slackMaxBodyBytes {
		st, code := tooLarge(strconv.FormatInt(r.ContentLength, 10) + " bytes")
		return nil, st, code
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, slackMaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			st, code := tooLarge("more than " + strconv.Itoa(slackMaxBodyBytes) + " bytes")
			return nil, st, code
		}
		return nil, status.New(codes.InvalidArgument, "reading the request body: "+err.Error()), http.StatusBadRequest
	}
	return body, nil, 0
}
