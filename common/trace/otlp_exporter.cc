#include "common/trace/otlp_exporter.h"

#include <chrono>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.grpc.pb.h"

namespace sluice::trace {
namespace {

namespace otlp = opentelemetry::proto;

template <size_t N>
std::string Bytes(const std::array<uint8_t, N>& a) {
  return std::string(reinterpret_cast<const char*>(a.data()), a.size());
}

void SetValue(const AttributeValue& v, otlp::common::v1::AnyValue* out) {
  if (const auto* s = std::get_if<std::string>(&v)) {
    out->set_string_value(*s);
  } else if (const auto* i = std::get_if<int64_t>(&v)) {
    out->set_int_value(*i);
  } else if (const auto* b = std::get_if<bool>(&v)) {
    out->set_bool_value(*b);
  } else if (const auto* d = std::get_if<double>(&v)) {
    out->set_double_value(*d);
  }
}

uint64_t UnixNanos(absl::Time t) { return static_cast<uint64_t>(absl::ToUnixNanos(t)); }

class OtlpGrpcExporter : public SpanExporter {
 public:
  explicit OtlpGrpcExporter(const OtlpOptions& options) : options_(options) {
    auto creds = options.insecure ? grpc::InsecureChannelCredentials()
                                  : grpc::SslCredentials(grpc::SslCredentialsOptions());
    stub_ = otlp::collector::trace::v1::TraceService::NewStub(
        grpc::CreateChannel(options.target, creds));
  }

  absl::Status Export(const std::vector<SpanData>& batch, absl::Duration timeout) override {
    auto request = ToOtlpRequest(batch, options_.service_name);
    otlp::collector::trace::v1::ExportTraceServiceResponse response;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + absl::ToChronoMilliseconds(timeout));
    for (const auto& [k, v] : options_.headers) ctx.AddMetadata(k, v);
    grpc::Status st = stub_->Export(&ctx, request, &response);
    if (!st.ok()) {
      return absl::UnavailableError(
          absl::StrCat("OTLP export to ", options_.target, ": ", st.error_message()));
    }
    return absl::OkStatus();
  }

 private:
  OtlpOptions options_;
  std::unique_ptr<otlp::collector::trace::v1::TraceService::Stub> stub_;
};

}  // namespace

otlp::collector::trace::v1::ExportTraceServiceRequest ToOtlpRequest(
    const std::vector<SpanData>& batch, const std::string& service_name) {
  otlp::collector::trace::v1::ExportTraceServiceRequest request;
  auto* rs = request.add_resource_spans();
  auto* attr = rs->mutable_resource()->add_attributes();
  attr->set_key("service.name");
  attr->mutable_value()->set_string_value(service_name);
  auto* ss = rs->add_scope_spans();
  ss->mutable_scope()->set_name("sluice");
  for (const SpanData& d : batch) {
    auto* s = ss->add_spans();
    s->set_trace_id(Bytes(d.context.trace_id));
    s->set_span_id(Bytes(d.context.span_id));
    s->set_trace_state(d.context.tracestate);
    bool root = std::all_of(d.parent_span_id.begin(), d.parent_span_id.end(),
                            [](uint8_t b) { return b == 0; });
    if (!root) s->set_parent_span_id(Bytes(d.parent_span_id));
    s->set_flags(d.context.flags);
    s->set_name(d.name);
    s->set_kind(static_cast<otlp::trace::v1::Span::SpanKind>(d.kind));
    s->set_start_time_unix_nano(UnixNanos(d.start));
    s->set_end_time_unix_nano(UnixNanos(d.end));
    for (const auto& [k, v] : d.attributes) {
      auto* kv = s->add_attributes();
      kv->set_key(k);
      SetValue(v, kv->mutable_value());
    }
    if (d.status != SpanStatus::kUnset) {
      s->mutable_status()->set_code(
          static_cast<otlp::trace::v1::Status::StatusCode>(d.status));
      s->mutable_status()->set_message(d.status_message);
    }
  }
  return request;
}

std::unique_ptr<SpanExporter> NewOtlpGrpcExporter(const OtlpOptions& options) {
  return std::make_unique<OtlpGrpcExporter>(options);
}

}  // namespace sluice::trace
