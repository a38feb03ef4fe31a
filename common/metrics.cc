#include "common/metrics.h"

#include <chrono>
#include <exception>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace sluice {
namespace {

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "Canceled";
    case grpc::StatusCode::UNKNOWN: return "Unknown";
    case grpc::StatusCode::INVALID_ARGUMENT: return "InvalidArgument";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DeadlineExceeded";
    case grpc::StatusCode::NOT_FOUND: return "NotFound";
    case grpc::StatusCode::ALREADY_EXISTS: return "AlreadyExists";
    case grpc::StatusCode::PERMISSION_DENIED: return "PermissionDenied";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "ResourceExhausted";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FailedPrecondition";
    case grpc::StatusCode::ABORTED: return "Aborted";
    case grpc::StatusCode::OUT_OF_RANGE: return "OutOfRange";
    case grpc::StatusCode::UNIMPLEMENTED: return "Unimplemented";
    case grpc::StatusCode::INTERNAL: return "Internal";
    case grpc::StatusCode::UNAVAILABLE: return "Unavailable";
    case grpc::StatusCode::DATA_LOSS: return "DataLoss";
    case grpc::StatusCode::UNAUTHENTICATED: return "Unauthenticated";
    default: return "Unknown";
  }
}

struct RpcFamilies {
  prometheus::Family<prometheus::Counter>* handled;
  prometheus::Family<prometheus::Histogram>* seconds;
};

class MetricsInterceptor : public grpc::experimental::Interceptor {
 public:
  MetricsInterceptor(grpc::experimental::ServerRpcInfo* info, RpcFamilies families)
      : families_(families), start_(std::chrono::steady_clock::now()) {
    // info->method() is "/pkg.Service/Method".
    absl::string_view full(info->method());
    if (!full.empty() && full[0] == '/') full.remove_prefix(1);
    auto slash = full.rfind('/');
    service_ = std::string(full.substr(0, slash));
    method_ = slash == absl::string_view::npos ? std::string(full)
                                               : std::string(full.substr(slash + 1));
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      grpc::Status st = methods->GetSendStatus();
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      families_.handled
          ->Add({{"grpc_service", service_}, {"grpc_method", method_},
                 {"grpc_code", CodeName(st.error_code())}})
          .Increment();
      families_.seconds
          ->Add({{"grpc_service", service_}, {"grpc_method", method_}},
                prometheus::Histogram::BucketBoundaries{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                        0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10})
          .Observe(secs);
    }
    methods->Proceed();
  }

 private:
  RpcFamilies families_;
  std::chrono::steady_clock::time_point start_;
  std::string service_;
  std::string method_;
};

class MetricsInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit MetricsInterceptorFactory(RpcFamilies families) : families_(families) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new MetricsInterceptor(info, families_);
  }

 private:
  RpcFamilies families_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Create(int port) {
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  server->registry_ = std::make_shared<prometheus::Registry>();
  if (port > 0) {
    try {
      server->exposer_ = std::make_unique<prometheus::Exposer>(absl::StrCat("0.0.0.0:", port));
    } catch (const std::exception& e) {
      return absl::UnavailableError(
          absl::StrCat("metrics endpoint: cannot listen on port ", port, ": ", e.what()));
    }
    server->exposer_->RegisterCollectable(server->registry_);
    auto ports = server->exposer_->GetListeningPorts();
    server->port_ = ports.empty() ? port : ports.front();
  }
  return server;
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
MetricsServer::NewGrpcInterceptorFactory() {
  RpcFamilies f;
  f.handled = &prometheus::BuildCounter()
                   .Name("grpc_server_handled_total")
                   .Help("RPCs completed on the server, by method and status code.")
                   .Register(*registry_);
  f.seconds = &prometheus::BuildHistogram()
                   .Name("grpc_server_handling_seconds")
                   .Help("RPC latency on the server until the status is sent, in seconds.")
                   .Register(*registry_);
  return std::make_unique<MetricsInterceptorFactory>(f);
}

prometheus::Counter& RegisterSpansDroppedCounter(prometheus::Registry& registry) {
  // prometheus-cpp returns the existing family for a repeated name and help.
  return prometheus::BuildCounter()
      .Name("sluice_trace_spans_dropped_total")
      .Help("Spans dropped because the trace export queue (OTEL_BSP_MAX_QUEUE_SIZE) was full.")
      .Register(registry)
      .Add({});
}

}  // namespace sluice
