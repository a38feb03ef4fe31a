package main

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// proxyTokenMetadata carries the shared proxy token to the server (its
// `header` auth mode believes the identity header only with it).
const proxyTokenMetadata = "x-sluice-proxy-token"

// newGatewayMux builds the transcoding mux: snake_case proto field names,
// default values emitted, only the allow-listed headers forwarded (see
// headerMatcher), the proxy token added to every call, nothing sent back as
// Grpc-Metadata-*.
// Request bodies are decoded strictly (strictJSONPb: an unknown field is a
// 400 naming it); `names` gives the messages' proto names for that error.
func newGatewayMux(authHeader, proxyToken string, names *messageNames) *runtime.ServeMux {
	marshaler := &strictJSONPb{JSONPb: runtime.JSONPb{MarshalOptions: responseJSON}, names: names}
	none := func(string) (string, bool) { return "", false }
	opts := []runtime.ServeMuxOption{
		runtime.WithErrorHandler(writeGRPCError),
		runtime.WithRoutingErrorHandler(writeRoutingError),
		runtime.WithMarshalerOption(runtime.MIMEWildcard, marshaler),
		runtime.WithIncomingHeaderMatcher(headerMatcher(authHeader)),
		runtime.WithOutgoingHeaderMatcher(none),
		runtime.WithOutgoingTrailerMatcher(none),
		runtime.WithMiddlewares(recordRoute),
	}
	if proxyToken != "" {
		md := metadata.Pairs(proxyTokenMetadata, proxyToken)
		opts = append(opts, runtime.WithMetadata(func(context.Context, *http.Request) metadata.MD { return md }))
	}
	return runtime.NewServeMux(opts...)
}

// pingHandler answers every request to /ping with 200 and the body `pong`,
// as Guardian's liveness path does (internal/server/server.go). It does not
// ask the backend: /healthz does.
func pingHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("pong"))
}

// headerMatcher forwards exactly two request headers as gRPC metadata: the
// configured identity header (under its lower-cased name) and
// Idempotency-Key. grpc-gateway v2 forwards Authorization (JWT mode and the
// alert hook's bearer token) itself, ahead of any matched header, so the
// matcher must not forward it a second time. Every other header is dropped,
// in particular Grpc-Metadata-* (grpc-gateway's default would forward
// Grpc-Metadata-X-Auth-Email as a second identity, finding C1) and any
// client copy of the proxy token. (v2 also sends x-forwarded-host and
// x-forwarded-for, which the server does not read.)
func headerMatcher(authHeader string) runtime.HeaderMatcherFunc {
	identity := strings.ToLower(authHeader)
	return func(key string) (string, bool) {
		switch k := strings.ToLower(key); k {
		case identity, "idempotency-key":
			return k, true
		}
		return "", false
	}
}

// limitBody refuses request bodies over max bytes: 413 with an rpcStatus
// (code 8, RESOURCE_EXHAUSTED) when Content-Length says so up front, and a
// read error (400) when a chunked body grows past it.
func limitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			writeStatusWithHTTP(w, status.New(codes.ResourceExhausted,
				"request body of "+strconv.FormatInt(r.ContentLength, 10)+" bytes exceeds the limit of "+
					strconv.FormatInt(max, 10)), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}

// healthHandler answers GET /healthz from the backend's grpc.health.v1 service:
// 200 {"status":"SERVING"} or an rpcStatus error (503 when unreachable).
func healthHandler(conn *grpc.ClientConn) http.Handler {
	client := grpc_health_v1.NewHealthClient(conn)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writeOtherError(w, r, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 3e9)
		defer cancel()
		resp, err := client.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: r.URL.Query().Get("service")})
		if err != nil {
			writeStatus(w, status.Convert(err))
			return
		}
		if resp.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
			writeStatus(w, status.New(codes.Unavailable, "backend status "+resp.GetStatus().String()))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"status":"SERVING"}`))
	})
}
