#include "sink/control/control_service.h"

#include <chrono>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/auth/secret.h"
#include "common/auth/tls.h"
#include "common/grpc_util.h"
#include "absl/time/clock.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"
#include "sink/filter/jexl_filter.h"
#include "sink/source/kafka_peek.h"

namespace sluice::sink {
namespace {

namespace pb = ::sluice::sink::v1beta1;

class SinkControlImpl final : public pb::SinkControl::Service {
 public:
  SinkControlImpl(ControlDeps deps, std::unique_ptr<ControlAuthenticator> auth)
      : deps_(deps), auth_(std::move(auth)) {}

  // Every method runs through Call: authentication first (review H6), and
  // an escaping exception becomes INTERNAL instead of killing the process.
  template <typename Fn>
  grpc::Status Call(grpc::ServerContext* context, absl::string_view method, Fn&& fn) {
    return Guarded(method, [&]() -> absl::Status {
      if (absl::Status s = auth_->Check(*context); !s.ok()) return s;
      return fn();
    });
  }

  grpc::Status GetStatus(grpc::ServerContext* context, const pb::GetStatusRequest*,
                         pb::GetStatusResponse* resp) override {
    return Call(context, "SinkControl/GetStatus", [&] { return FillStatus(resp); });
  }

  grpc::Status Pause(grpc::ServerContext* context, const pb::PauseRequest*,
                     pb::PauseResponse* resp) override {
    return Call(context, "SinkControl/Pause", [&] {
      deps_.control->SetPaused(true);
      resp->set_paused(true);
      return absl::OkStatus();
    });
  }

  grpc::Status Resume(grpc::ServerContext* context, const pb::ResumeRequest*,
                      pb::ResumeResponse* resp) override {
    return Call(context, "SinkControl/Resume", [&] {
      deps_.control->SetPaused(false);
      resp->set_paused(false);
      return absl::OkStatus();
    });
  }

  grpc::Status TestFilter(grpc::ServerContext* context, const pb::TestFilterRequest* req,
                          pb::TestFilterResponse* resp) override {
    // next_records reads topic data with the sink's Kafka credentials: the
    // same authentication as every other method.
    return Call(context, "SinkControl/TestFilter", [&] { return RunTestFilter(*req, resp); });
  }

 private:
  const SchemaRegistry* Registry() const {
    return deps_.startup != nullptr ? deps_.startup->registry() : deps_.registry;
  }

  absl::Status FillStatus(pb::GetStatusResponse* resp) {
    for (const auto& [k, v] : MaskedConfig(*deps_.env)) (*resp->mutable_config())[k] = v;
    const SinkConfig& c = *deps_.config;
    resp->set_sink_type(c.sink_type);
    resp->set_topic(c.source.topic);
    resp->set_consumer_group(c.source.group_id);
    resp->set_workers(c.source.thread_count);
    resp->set_paused(deps_.control->Paused());
    for (const PartitionStatus& p : deps_.control->Partitions()) {
      pb::PartitionStatus* out = resp->add_partitions();
      out->set_topic(p.tp.topic);
      out->set_partition(p.tp.partition);
      out->set_committed_offset(p.committed);
      out->set_position(p.position);
      out->set_high_watermark(p.high_watermark);
      out->set_lag(p.lag);
      out->set_paused(p.paused);
    }
    WorkerControl::Counters n = deps_.control->GetCounters();
    pb::Counters* counters = resp->mutable_counters();
    counters->set_consumed(n.consumed);
    counters->set_filtered(n.filtered);
    counters->set_pushed(n.pushed);
    counters->set_failed(n.failed);
    counters->set_commits(n.commits);
    resp->set_last_error(deps_.control->LastError());
    if (const SchemaRegistry* r = Registry()) resp->set_schema_version(r->Current()->version());
    resp->set_started(deps_.startup == nullptr || deps_.startup->started());
    if (deps_.startup != nullptr && !deps_.startup->started()) {
      resp->set_not_started_reason(deps_.startup->reason());
    }
    if (c.filter.jexl) resp->set_filter_expression(c.filter.expression);
    return absl::OkStatus();
  }

  absl::Status RunTestFilter(const pb::TestFilterRequest& req, pb::TestFilterResponse* resp) {
    const SinkConfig& c = *deps_.config;
    const bool json_input = c.schema.data_type == SchemaConfig::DataType::kJson;
    if (Registry() == nullptr && !json_input) {
      return absl::FailedPreconditionError("TestFilter needs the schema registry (protobuf input)");
    }
    FilterConfig fc = c.filter;
    if (!req.expression().empty()) {
      fc.expression = req.expression();
      if (!c.filter.jexl) {
        fc.proto_class = c.schema.proto_class;
        fc.data_source_key = c.schema.parse_key;
      }
    } else if (!c.filter.jexl) {
      return absl::FailedPreconditionError(
          "no JEXL filter configured (FILTER_ENGINE is not JEXL): pass an expression");
    }
    fc.jexl = true;
    fc.jexl_json = json_input;
    auto filter = JexlFilter::Create(fc, c.schema, Registry());
    if (!filter.ok()) return filter.status();
    std::vector<Message> records;
    if (req.records_size() > 0) {
      for (const pb::Record& r : req.records()) {
        Message& m = records.emplace_back();
        m.offset = -1;
        m.partition = -1;
        if (!r.key().empty()) m.key = r.key();
        m.value = r.value();
      }
    } else if (req.next_records() > 0) {
      int timeout_ms = req.timeout_ms() > 0 ? req.timeout_ms() : 10000;
      auto peeked = PeekRecords(c.source, std::min(req.next_records(), 1000),
                                absl::Milliseconds(timeout_ms));
      if (!peeked.ok()) return peeked.status();
      records = *std::move(peeked);
    } else {
      return absl::InvalidArgumentError("give records or next_records > 0");
    }
    resp->set_expression(fc.expression);
    resp->set_variable((*filter)->variable());
    for (size_t i = 0; i < records.size(); ++i) {
      const Message& m = records[i];
      pb::FilterResult* r = resp->add_results();
      r->set_index(static_cast<int32_t>(i));
      r->set_topic(m.topic);
      r->set_partition(m.partition);
      r->set_offset(m.offset);
      absl::StatusOr<bool> keep = (*filter)->Evaluate(m);
      if (keep.ok()) {
        r->set_kept(*keep);
      } else {
        r->set_error(std::string(keep.status().message()));
      }
      r->set_message_text((*filter)->Describe(m));
    }
    return absl::OkStatus();
  }

  ControlDeps deps_;
  std::unique_ptr<ControlAuthenticator> auth_;
};

}  // namespace

void StartupState::SetNotStarted(std::string reason) {
  absl::MutexLock l(&mu_);
  reason_ = std::move(reason);
}

void StartupState::MarkStarted(const SchemaRegistry* registry) {
  absl::MutexLock l(&mu_);
  started_ = true;
  reason_.clear();
  registry_ = registry;
}

bool StartupState::started() const {
  absl::MutexLock l(&mu_);
  return started_;
}

std::string StartupState::reason() const {
  absl::MutexLock l(&mu_);
  return reason_;
}

const SchemaRegistry* StartupState::registry() const {
  absl::MutexLock l(&mu_);
  return registry_;
}

absl::StatusOr<std::unique_ptr<ControlAuthenticator>> ControlAuthenticator::Create(
    const ControlConfig& config) {
  auto a = std::unique_ptr<ControlAuthenticator>(new ControlAuthenticator());
  if (config.has_token()) {
    auth::SecretSource source;
    source.file = config.token_file;
    if (config.token_in_env) source.env = "SINK_CONTROL_TOKEN";
    auto token = auth::LoadSecret(
        source, config.token_in_env ? "SINK_CONTROL_TOKEN" : "SINK_CONTROL_TOKEN_FILE");
    if (!token.ok()) return token.status();
    a->token_ = *std::move(token);
  }
  a->mtls_ = config.mtls();
  return a;
}

absl::Status ControlAuthenticator::Check(const grpc::ServerContext& context) const {
  if (token_.empty() && !mtls_) return absl::OkStatus();  // loopback only (ParseSinkConfig)
  if (mtls_ && auth::PeerCertificateVerified(context)) return absl::OkStatus();
  if (!token_.empty()) {
    const auto& md = context.client_metadata();
    auto range = md.equal_range("authorization");
    int n = 0;
    bool match = false;
    for (auto it = range.first; it != range.second; ++it, ++n) {
      absl::string_view v(it->second.data(), it->second.size());
      if (v.size() > 7 && absl::EqualsIgnoreCase(v.substr(0, 7), "bearer ")) {
        match = auth::ConstantTimeEquals(absl::StripAsciiWhitespace(v.substr(7)), token_);
      }
    }
    if (n == 1 && match) return absl::OkStatus();
    if (n > 1) return absl::UnauthenticatedError("more than one authorization value");
    if (n == 1) return absl::UnauthenticatedError("wrong control token");
    return absl::UnauthenticatedError(
        "the control API needs authorization: Bearer <token> (SINK_CONTROL_TOKEN_FILE)");
  }
  return absl::UnauthenticatedError("the control API needs a verified client certificate");
}

std::string ControlListenAddress(const std::string& host, int port) {
  // An IPv6 literal needs brackets before the port.
  if (host.find(':') != std::string::npos && !absl::StartsWith(host, "[")) {
    return absl::StrCat("[", host, "]:", port);
  }
  return absl::StrCat(host, ":", port);
}

absl::StatusOr<std::unique_ptr<ControlServer>> ControlServer::Start(const ControlConfig& config,
                                                                    ControlDeps deps) {
  auto auth = ControlAuthenticator::Create(config);
  if (!auth.ok()) return auth.status();
  auth::TlsServerOptions tls{config.tls_cert_file, config.tls_key_file, config.tls_client_ca_file};
  auto creds = auth::MakeServerCredentials(tls);
  if (!creds.ok()) {
    return absl::Status(creds.status().code(),
                        absl::StrCat("SINK_CONTROL_TLS_*: ", creds.status().message()));
  }
  auto s = std::unique_ptr<ControlServer>(new ControlServer());
  s->service_ = std::make_unique<SinkControlImpl>(deps, *std::move(auth));
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  const std::string address = ControlListenAddress(config.host, config.port);
  builder.AddListeningPort(address, *creds, &s->port_);
  builder.RegisterService(s->service_.get());
  s->server_ = builder.BuildAndStart();
  if (s->server_ == nullptr || s->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("SINK_CONTROL_HOST/SINK_CONTROL_PORT ", address,
                                               ": cannot listen"));
  }
  return s;
}

ControlServer::~ControlServer() { Shutdown(); }

void ControlServer::Shutdown() {
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_.reset();
  }
}

}  // namespace sluice::sink
