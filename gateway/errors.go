package main

import (
	"context"
	"errors"
	"log"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// httpStatusFromCode is the canonical gRPC → HTTP mapping of google/rpc/code.proto
// (the one grpc-gateway v2 uses). v1.6.4 maps FailedPrecondition to 412, which
// disagreed with it; v2's runtime.HTTPStatusFromCode agrees, but this table
// is the contract the replays were recorded with, so it stays ours.
func httpStatusFromCode(c codes.Code) int {
	switch c {
	case codes.OK:
		return http.StatusOK
	case codes.Canceled:
		return 499
	case codes.Unknown:
		return http.StatusInternalServerError
	case codes.InvalidArgument:
		return http.StatusBadRequest
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case codes.NotFound:
		return http.StatusNotFound
	case codes.AlreadyExists:
		return http.StatusConflict
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.FailedPrecondition:
		return http.StatusBadRequest
	case codes.Aborted:
		return http.StatusConflict
	case codes.OutOfRange:
		return http.StatusBadRequest
	case codes.Unimplemented:
		return http.StatusNotImplemented
	case codes.Internal:
		return http.StatusInternalServerError
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	case codes.DataLoss:
		return http.StatusInternalServerError
	}
	return http.StatusInternalServerError
}

// writeStatus renders s as {"code": <int>, "message": "...", "details": [...]}.
func writeStatus(w http.ResponseWriter, s *status.Status) {
	writeStatusWithHTTP(w, s, httpStatusFromCode(s.Code()))
}

func writeStatusWithHTTP(w http.ResponseWriter, s *status.Status, httpCode int) {
	body, err := marshalProto(s.Proto())
	if err != nil {
		// A detail whose type the gateway cannot resolve: drop the details
		// rather than fail the whole error body.
		log.Printf("sluice-gateway: marshal status details: %v", err)
		body, _ = marshalProto(status.New(s.Code(), s.Message()).Proto())
	}
	w.Header().Del("Trailer")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpCode)
	_, _ = w.Write(body)
}

// writeGRPCError is the mux's error handler: every gRPC error from the
// backend and every transcoding error (a malformed JSON body is
// InvalidArgument; an unreachable backend is Unavailable). A malformed
// percent sequence in the path (runtime.HTTPStatusError, 400) is
// InvalidArgument with that status.
func writeGRPCError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, _ *http.Request, err error) {
	var he *runtime.HTTPStatusError
	if errors.As(err, &he) {
		writeStatusWithHTTP(w, status.New(codes.InvalidArgument, he.Err.Error()), he.HTTPStatus)
		return
	}
	s, ok := status.FromError(err)
	if !ok {
		s = status.New(codes.Unknown, err.Error())
	}
	writeStatus(w, s)
}

// writeRoutingError is the mux's routing error handler (see writeOtherError).
func writeRoutingError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpCode int) {
	writeOtherError(w, r, http.StatusText(httpCode), httpCode)
}

// writeOtherError renders routing errors. An unknown route is 404/NotFound,
// a known route with the wrong method is 405/Unimplemented, and a path that
// does not start with "/" is 400/InvalidArgument.
func writeOtherError(w http.ResponseWriter, r *http.Request, msg string, httpCode int) {
	switch httpCode {
	case http.StatusNotFound:
		writeStatusWithHTTP(w, status.New(codes.NotFound, "no route for "+r.Method+" "+r.URL.Path), http.StatusNotFound)
	case http.StatusMethodNotAllowed:
		writeStatusWithHTTP(w, status.New(codes.Unimplemented, "method "+r.Method+" not allowed for "+r.URL.Path), http.StatusMethodNotAllowed)
	case http.StatusBadRequest:
		writeStatusWithHTTP(w, status.New(codes.InvalidArgument, msg), http.StatusBadRequest)
	default:
		writeStatusWithHTTP(w, status.New(codes.Unknown, msg), httpCode)
	}
}
