// Server spans for every gRPC call: a gRPC server interceptor that continues
// the caller's trace from `traceparent`/`tracestate` metadata (W3C Trace
// Context; sluice-gateway sends them, and so may grpcurl or any SDK) or
// starts a new one, and makes the span the handler thread's current context.
#ifndef SLUICE_COMMON_TRACE_GRPC_SERVER_TRACING_H_
#define SLUICE_COMMON_TRACE_GRPC_SERVER_TRACING_H_

#include <memory>

#include <grpcpp/support/server_interceptor.h>

namespace sluice::trace {

// The interceptor factory (register it first, so that other interceptors'
// log lines carry the trace). Per call: a SERVER span named by the full
// method ("/pkg.Service/Method") with rpc.system, rpc.service, rpc.method
// and rpc.grpc.status_code attributes, its parent the valid `traceparent`
// (an invalid or repeated one is ignored: a new trace starts, W3C section
// 3.2.2), error status for the codes OTel's gRPC conventions call server
// errors. The span is the current context (trace_context.h) from the
// received metadata until the status is sent: sync gRPC runs those hooks
// and the handler on one thread. The factory must outlive the server.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewServerTracingInterceptorFactory();

}  // namespace sluice::trace

#endif  // SLUICE_COMMON_TRACE_GRPC_SERVER_TRACING_H_
