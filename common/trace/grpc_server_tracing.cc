#include "common/trace/grpc_server_tracing.h"

#include <optional>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/trace/span.h"

namespace sluice::trace {
namespace {

using grpc::experimental::InterceptionHookPoints;

// OTel semantic conventions for gRPC: the status codes that make a server
// span an error (the others are the client's fault).
bool IsServerError(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::UNIMPLEMENTED:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DATA_LOSS:
      return true;
    default:
      return false;
  }
}

class TracingInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit TracingInterceptor(grpc::experimental::ServerRpcInfo* info)
      : method_(info->method() == nullptr ? "" : info->method()) {}

  ~TracingInterceptor() override { Finish(nullptr); }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      Begin(methods->GetRecvInitialMetadata());
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      grpc::Status st = methods->GetSendStatus();
      Finish(&st);
    }
    methods->Proceed();
  }

 private:
  void Begin(std::multimap<grpc::string_ref, grpc::string_ref>* metadata) {
    std::optional<TraceContext> parent;
    std::string tracestate;
    if (metadata != nullptr) {
      auto [lo, hi] = metadata->equal_range(kTraceparentHeader);
      // Exactly one traceparent; several are invalid (section 3.2).
      if (lo != hi && std::next(lo) == hi) {
        parent = ParseTraceparent(absl::string_view(lo->second.data(), lo->second.size()));
      }
      if (parent) {
        auto [slo, shi] = metadata->equal_range(kTracestateHeader);
        for (auto it = slo; it != shi; ++it) {  // several combine with ',' (3.3.1.1)
          absl::StrAppend(&tracestate, tracestate.empty() ? "" : ",",
                          absl::string_view(it->second.data(), it->second.size()));
        }
        parent->tracestate = SanitizeTracestate(tracestate);
      }
    }
    span_.emplace(Span::Start(method_, SpanKind::kServer, parent ? &*parent : nullptr));
    absl::string_view full = method_;
    if (!full.empty() && full[0] == '/') full.remove_prefix(1);
    size_t slash = full.rfind('/');
    span_->SetAttribute("rpc.system", std::string("grpc"));
    if (slash != absl::string_view::npos) {
      span_->SetAttribute("rpc.service", std::string(full.substr(0, slash)));
      span_->SetAttribute("rpc.method", std::string(full.substr(slash + 1)));
    }
    scope_.emplace(span_->context());
    thread_ = std::this_thread::get_id();
  }

  // Ends the span with `status` (nullptr: the call ended without one) and
  // closes the scope if this is the thread that opened it.
  void Finish(const grpc::Status* status) {
    if (scope_) {
      if (thread_ != std::this_thread::get_id()) scope_->Dismiss();
      scope_.reset();
    }
    if (!span_) return;
    if (status != nullptr) {
      span_->SetAttribute("rpc.grpc.status_code", static_cast<int64_t>(status->error_code()));
      if (IsServerError(status->error_code())) {
        span_->SetStatus(SpanStatus::kError, status->error_message());
      }
    } else {
      span_->SetStatus(SpanStatus::kError, "call ended without a status");
    }
    span_->End();
    span_.reset();
  }

  const std::string method_;
  std::optional<Span> span_;
  std::optional<ContextScope> scope_;
  std::thread::id thread_;
};

class TracingInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new TracingInterceptor(info);
  }
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewServerTracingInterceptorFactory() {
  return std::make_unique<TracingInterceptorFactory>();
}

}  // namespace sluice::trace
