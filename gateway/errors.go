package main

import (
	"context"
	"log"
	"net/http"

	"github.com/golang/protobuf/jsonpb"
	"github.com/grpc-ecosystem/grpc-gateway/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// httpStatusFromCode is the canonical gRPC → HTTP mapping of google/rpc/code.proto
// (the one grpc-gateway v2 uses). v1.6.4 maps FailedPrecondition to 412, which
// disagrees with it, so we keep our own table.
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

var statusMarshaler = &jsonpb.Marshaler{OrigName: true, EmitDefaults: true}

// writeStatus renders s as {"code": <int>, "message": "...", "details": [...]}.
func writeStatus(w http.ResponseWriter, s *status.Status) {
	writeStatusWithHTTP(w, s, httpStatusFromCode(s.Code()))
}

func writeStatusWithHTTP(w http.ResponseWriter, s *status.Status, httpCode int) {
	body, err := statusMarshaler.MarshalToString(s.Proto())
	if err != nil {
		// A detail whose type the gateway cannot resolve: drop the details
		// rather than fail the whole error body.
		log.Printf("sluice-gateway: marshal status details: %v", err)
		body, _ = statusMarshaler.MarshalToString(status.New(s.Code(), s.Message()).Proto())
	}
	w.Header().Del("Trailer")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpCode)
	_, _ = w.Write([]byte(body))
}

// writeGRPCError is runtime.HTTPError: every gRPC error from the backend and
// every transcoding error (a malformed JSON body is InvalidArgument; an
// unreachable backend is Unavailable).
func writeGRPCError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, _ *http.Request, err error) {
	s, ok := status.FromError(err)
	if !ok {
		s = status.New(codes.Unknown, err.Error())
	}
	writeStatus(w, s)
}

// writeOtherError is runtime.OtherErrorHandler: routing errors. An unknown
// route is 404/NotFound, a known route with the wrong method is
// 405/Unimplemented, and a bad form body is 400/InvalidArgument.
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
