#include "sink/sinks/prometheus/prom_sink.h"

#include <snappy.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sink/sinks/common/http_options.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {
namespace {

// Prometheus's answers for samples it will never take (remote-write spec:
// such 4xx must not be retried): storage.ErrOutOfOrderSample,
// ErrDuplicateSampleForTimestamp, ErrOutOfBounds/ErrTooOldSample.
bool RejectsSamples(absl::string_view body) {
  for (absl::string_view why : {"out of order", "duplicate sample", "out of bounds", "too old"}) {
    if (absl::StrContains(body, why)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<PromSinkConfig> PromSinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  PromSinkConfig c;
  auto target = ReadHttpTarget(env, "SINK_PROM_SERVICE_URL", "SINK_PROM_REQUEST_TIMEOUT_MS", 10000);
  if (!target.ok()) return target.status();
  c.url = target->url;
  c.request_timeout_ms = target->timeout_ms;
  auto retry = ParseStatusRanges(env.GetOr("SINK_PROM_RETRY_STATUS_CODE_RANGES", "400-600"),
                                 "SINK_PROM_RETRY_STATUS_CODE_RANGES");
  if (!retry.ok()) return retry.status();
  c.retry_ranges = *retry;
  auto log = ParseStatusRanges(env.GetOr("SINK_PROM_REQUEST_LOG_STATUS_CODE_RANGES", "400-499"),
                               "SINK_PROM_REQUEST_LOG_STATUS_CODE_RANGES");
  if (!log.ok()) return log.status();
  c.log_ranges = *log;
  auto headers = ParseHeaderList(env.GetOr("SINK_PROM_HEADERS", ""), "SINK_PROM_HEADERS");
  if (!headers.ok()) return headers.status();
  c.headers = *std::move(headers);
  // Fields keep field numbers, so the descriptor is needed only here.
  auto owned = ctx.InputDescriptor();
  if (!owned.ok()) return owned.status();
  const google::protobuf::Descriptor* d = *owned ? (*owned)->get() : nullptr;
  if (absl::Status s = ParseFieldMappingVariable(env, "SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING", d, true, &c.metrics);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseFieldMappingVariable(env, "SINK_PROM_LABEL_NAME_PROTO_INDEX_MAPPING", d, false, &c.labels);
      !s.ok()) {
    return s;
  }
  auto with_ts = env.GetBool("SINK_PROM_WITH_EVENT_TIMESTAMP", false);
  if (!with_ts.ok()) return with_ts.status();
  c.with_event_timestamp = *with_ts;
  if (c.with_event_timestamp) {
    auto ts = env.Get("SINK_PROM_PROTO_EVENT_TIMESTAMP_INDEX");
    if (!ts) {
      return absl::InvalidArgumentError(
          "SINK_PROM_WITH_EVENT_TIMESTAMP=true needs SINK_PROM_PROTO_EVENT_TIMESTAMP_INDEX");
    }
    auto field = RecordField::Parse(*ts, d, "SINK_PROM_PROTO_EVENT_TIMESTAMP_INDEX");
    if (!field.ok()) return field.status();
    c.timestamp = std::make_shared<const RecordField>(*std::move(field));
  }
  return c;
}

PromSink::PromSink(PromSinkConfig config, Metrics* metrics, std::shared_ptr<HttpClient> http)
    : config_(std::move(config)), metrics_(metrics), http_(std::move(http)) {}

absl::StatusOr<std::unique_ptr<PromSink>> PromSink::Create(PromSinkConfig config, Metrics* metrics,
                                                           std::shared_ptr<HttpClient> http) {
  if (http == nullptr) http = NewCurlHttpClient();
  return std::unique_ptr<PromSink>(new PromSink(std::move(config), metrics, std::move(http)));
}

absl::Status PromSink::AddSeries(const Message& m, int64_t now_ms) {
  int64_t ts = now_ms;
  if (config_.with_event_timestamp) {
    auto t = config_.timestamp->ReadTyped(m);
    if (!t.ok()) return t.status();
    if (!t->has_value() || (*t)->kind != RecordField::Typed::Kind::kInt ||
        !absl::SimpleAtoi((*t)->text, &ts)) {
      return absl::InvalidArgumentError(absl::StrCat("the event timestamp \"", config_.timestamp->spec(),
                                                     "\" is absent or not a timestamp"));
    }
  }
  // Labels: kafka_partition (Firehose adds it) and the mapped ones.
  std::vector<std::pair<std::string, std::string>> labels = {
      {"kafka_partition", std::to_string(m.partition)}};
  for (const NamedField& l : config_.labels) {
    auto v = l.field.ReadTyped(m);
    if (!v.ok()) return v.status();
    if (v->has_value() && !(*v)->text.empty()) labels.emplace_back(l.name, (*v)->text);
  }
  std::vector<std::pair<std::string, double>> samples;
  for (const NamedField& metric : config_.metrics) {
    auto v = metric.field.ReadTyped(m);
    if (!v.ok()) return v.status();
    double value = 0;
    if (!v->has_value() || !absl::SimpleAtod((*v)->text, &value) ||
        (*v)->kind == RecordField::Typed::Kind::kString) {
      return absl::InvalidArgumentError(
          absl::StrCat("metric \"", metric.name, "\": field \"", metric.field.spec(), "\" is absent or not a number"));
    }
    samples.emplace_back(metric.name, value);
  }
  for (const auto& [name, value] : samples) {
    std::vector<std::pair<std::string, std::string>> all = labels;
    all.emplace_back("__name__", name);
    std::sort(all.begin(), all.end());  // the spec: labels sorted by name
    prometheus::TimeSeries* series = request_.add_timeseries();
    for (const auto& [k, v] : all) {
      prometheus::Label* l = series->add_labels();
      l->set_name(k);
      l->set_value(v);
    }
    prometheus::Sample* s = series->add_samples();
    s->set_value(value);
    s->set_timestamp(ts);
  }
  return absl::OkStatus();
}

std::vector<FailedMessage> PromSink::Prepare(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed;
  request_.Clear();
  messages_.clear();
  const int64_t now = absl::ToUnixMillis(absl::Now());
  for (const Message& m : batch) {
    const int before = request_.timeseries_size();
    if (absl::Status s = AddSeries(m, now); !s.ok()) {
      while (request_.timeseries_size() > before) request_.mutable_timeseries()->RemoveLast();
      failed.push_back({m, ErrorType::kInvalidMessageError, absl::StrCat("prometheus sink: ", s.message())});
      continue;
    }
    messages_.push_back(&m);
  }
  return failed;
}

std::vector<FailedMessage> PromSink::Execute() {
  std::vector<FailedMessage> failed;
  if (messages_.empty()) return failed;
  HttpRequest req;
  req.method = "POST";
  req.url = config_.url;
  std::string raw = request_.SerializeAsString();
  snappy::Compress(raw.data(), raw.size(), &req.body);
  req.headers = {"Content-Encoding: snappy", "Content-Type: application/x-protobuf",
                 "X-Prometheus-Remote-Write-Version: 0.1.0", "User-Agent: sluice-sink"};
  for (const auto& [k, v] : config_.headers) req.headers.push_back(absl::StrCat(k, ": ", v));
  req.timeout = absl::Milliseconds(config_.request_timeout_ms);
  absl::StatusOr<HttpResult> res = http_->Do(req);
  std::string where = RedactUrl(config_.url);
  auto fail_all = [&](ErrorType type, const std::string& why) {
    for (const Message* m : messages_) failed.push_back({*m, type, absl::StrCat("prometheus sink: ", why)});
  };
  // Firehose's PromSink is an AbstractHttpSink: a failed message never gets
  // an error type, so every failure below is DEFAULT_ERROR (AbstractSink.java:70,
  // Message.java:33-36): a transport error through AbstractSink.java:48-53, a
  // status in SINK_PROM_RETRY_STATUS_CODE_RANGES through AbstractHttpSink.java:63-64.
  if (!res.ok()) {
    fail_all(ErrorType::kDefaultError, std::string(res.status().message()));
  } else if (res->status < 200 || res->status >= 300) {
    const int s = static_cast<int>(res->status);
    if (InStatusRanges(config_.log_ranges, s)) {
      spdlog::warn("prometheus sink: POST {} -> {} (request {} bytes, response {} bytes)", where, s,
                   req.body.size(), res->body.size());
    }
    if (s >= 400 && s < 500 && s != 429 && RejectsSamples(res->body)) {
      spdlog::warn("prometheus sink: POST {} -> {}: samples rejected (out of order, duplicate or too "
                   "old); not retried, as the remote-write spec says",
                   where, s);
      metrics_->Increment("firehose_sink_messages_drop_total", {{"cause", "rejected_samples"}},
                          static_cast<double>(messages_.size()));
    } else if (s == 429) {
      fail_all(ErrorType::kDefaultError, absl::StrCat("POST ", where, " -> 429"));
    } else if (InStatusRanges(config_.retry_ranges, s)) {
      fail_all(ErrorType::kDefaultError, absl::StrCat("POST ", where, " -> ", s));
    } else if (s < 400 || s > 599) {
      // 1xx/3xx (redirects are not followed): nothing was stored.
      fail_all(ErrorType::kDefaultError, absl::StrCat("POST ", where, " -> ", s, " (not a success)"));
    } else {
      metrics_->Increment("firehose_sink_messages_drop_total", {{"cause", absl::StrCat(s)}},
                          static_cast<double>(messages_.size()));
    }
  }
  request_.Clear();
  messages_.clear();
  return failed;
}

}  // namespace sluice::sink
