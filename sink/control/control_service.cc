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
#include "librdkafka/rdkafka.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"
#include "sink/filter/jexl_filter.h"
#include "sink/source/kafka_consumer.h"

namespace sluice::sink {
namespace {

namespace pb = ::sluice::sink::v1beta1;

// Reads up to `n` records of `config.topic` from the group's committed
// offsets (auto.offset.reset where none) without joining the group or
// committing.
absl::StatusOr<std::vector<Message>> PeekRecords(const SourceConfig& config, int n,
                                                 absl::Duration timeout) {
  if (absl::StartsWith(config.topic, "^")) {
    return absl::InvalidArgumentError("next_records needs a plain topic, not a regex subscription");
  }
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::map<std::string, std::string> props = ConsumerProperties(config);
  for (const auto& [k, v] : props) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return absl::InvalidArgumentError(absl::StrCat(k, ": ", err));
    }
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return absl::InternalError(err);
  }
  std::vector<Message> out;
  absl::Status status;
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, config.topic.c_str(), nullptr);
  rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 5000);
  rd_kafka_topic_destroy(rkt);
  if (e || md->topic_cnt != 1 || md->topics[0].err) {
    // topics[0] exists only when topic_cnt > 0.
    rd_kafka_resp_err_t why = e                    ? e
                              : md->topic_cnt >= 1 ? md->topics[0].err
                                                   : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
    status = absl::UnavailableError(
        absl::StrCat("metadata for ", config.topic, ": ", rd_kafka_err2str(why)));
  } else {
    auto* list = rd_kafka_topic_partition_list_new(md->topics[0].partition_cnt);
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
      rd_kafka_topic_partition_list_add(list, config.topic.c_str(), md->topics[0].partitions[i].id);
    }
    rd_kafka_committed(rk, list, 5000);
    for (int i = 0; i < list->cnt; ++i) {
      if (list->elems[i].offset < 0) {
        list->elems[i].offset = config.auto_offset_reset == "earliest" ? RD_KAFKA_OFFSET_BEGINNING
                                                                        : RD_KAFKA_OFFSET_END;
      }
    }
    rd_kafka_assign(rk, list);
    rd_kafka_topic_partition_list_destroy(list);
    absl::Time deadline = absl::Now() + timeout;
    while (static_cast<int>(out.size()) < n && absl::Now() < deadline) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
      if (m == nullptr) continue;
      if (!m->err) {
        Message& msg = out.emplace_back();
        msg.topic = rd_kafka_topic_name(m->rkt);
        msg.partition = m->partition;
        msg.offset = m->offset;
        if (m->key) msg.key.emplace(static_cast<const char*>(m->key), m->key_len);
        if (m->payload) msg.value.assign(static_cast<const char*>(m->payload), m->len);
      }
      rd_kafka_message_destroy(m);
    }
    rd_kafka_assign(rk, nullptr);
  }
  if (md) rd_kafka_metadata_destroy(md);
  rd_kafka_destroy(rk);
  if (!status.ok()) return status;
  return out;
}

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
    if (deps_.registry) resp->set_schema_version(deps_.registry->Current()->version());
    if (c.filter.jexl) resp->set_filter_expression(c.filter.expression);
    return absl::OkStatus();
  }

  absl::Status RunTestFilter(const pb::TestFilterRequest& req, pb::TestFilterResponse* resp) {
    const SinkConfig& c = *deps_.config;
    if (deps_.registry == nullptr) {
      return absl::FailedPreconditionError("TestFilter needs INPUT_SCHEMA_DATA_TYPE=protobuf");
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
          "no filter configured (FILTER_ENGINE=NO_OP): pass an expression");
    }
    fc.jexl = true;
    auto filter = JexlFilter::Create(fc, c.schema, deps_.registry);
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
