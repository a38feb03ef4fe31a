package main

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// authHeader is the identity header set by the auth proxy in front of the
// gateway. It reaches the server as gRPC metadata "x-auth-email".
const authHeader = "X-Auth-Email"

func itoa(i int) string { return strconv.Itoa(i) }

// newGatewayMux builds the transcoding mux: snake_case proto field names,
// default values emitted, X-Auth-Email forwarded, no Grpc-Metadata-* leak.
func newGatewayMux() *runtime.ServeMux {
	runtime.HTTPError = writeGRPCError
	runtime.OtherErrorHandler = writeOtherError
	return runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.JSONPb{OrigName: true, EmitDefaults: true}),
		runtime.WithIncomingHeaderMatcher(incomingHeader),
		runtime.WithOutgoingHeaderMatcher(func(string) (string, bool) { return "", false }),
	)
}

// incomingHeader forwards X-Auth-Email and Idempotency-Key as metadata, plus
// grpc-gateway's default set (permanent HTTP headers, Grpc-Metadata-*).
func incomingHeader(key string) (string, bool) {
	switch strings.ToLower(key) {
	case "x-auth-email":
		return "x-auth-email", true
	case "idempotency-key":
		return "idempotency-key", true
	}
	return runtime.DefaultHeaderMatcher(key)
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
