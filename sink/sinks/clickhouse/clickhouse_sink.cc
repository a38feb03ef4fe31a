#include "sink/sinks/clickhouse/clickhouse_sink.h"

#include "sink/sinks/common/http_options.h"

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {
namespace {

// "... (at row 3)" in ClickHouse's parse errors -> 3 (1-based), or -1.
int BadRow(absl::string_view error) {
  size_t at = error.find("(at row ");
  if (at == absl::string_view::npos) return -1;
  absl::string_view rest = error.substr(at + 8);
  int row = -1;
  if (!absl::SimpleAtoi(rest.substr(0, rest.find(')')), &row)) return -1;
  return row;
}

}  // namespace

absl::StatusOr<ClickHouseSinkConfig> ClickHouseSinkConfig::FromEnv(const Env& env,
                                                                   const SinkContext& ctx) {
  ClickHouseSinkConfig c;
  auto target = ReadHttpTarget(env, "SINK_CLICKHOUSE_URL", "SINK_CLICKHOUSE_REQUEST_TIMEOUT_MS", 10000);
  if (!target.ok()) return target.status();
  c.url = target->url;
  c.request_timeout_ms = target->timeout_ms;
  auto table = env.Require("SINK_CLICKHOUSE_TABLE_NAME");
  if (!table.ok()) return table.status();
  c.table = *table;
  c.database = env.GetOr("SINK_CLICKHOUSE_DATABASE", "default");
  c.username = env.GetOr("SINK_CLICKHOUSE_USERNAME", "default");
  c.password = env.GetOr("SINK_CLICKHOUSE_PASSWORD", "");
  // Fields keep field numbers, so the descriptor is needed only here.
  auto owned = ctx.InputDescriptor();
  if (!owned.ok()) return owned.status();
  const google::protobuf::Descriptor* d = *owned ? (*owned)->get() : nullptr;
  const char* variable =
      d != nullptr ? "INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING" : "INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING";
  if (absl::Status s = ParseFieldMappingVariable(env, variable, d, /*required=*/true, &c.columns); !s.ok()) {
    return s;
  }
  return c;
}

ClickHouseSink::ClickHouseSink(ClickHouseSinkConfig config, std::shared_ptr<HttpClient> http)
    : config_(std::move(config)), http_(std::move(http)) {}

absl::StatusOr<std::unique_ptr<ClickHouseSink>> ClickHouseSink::Create(
    ClickHouseSinkConfig config, Metrics*, std::shared_ptr<HttpClient> http) {
  if (http == nullptr) http = NewCurlHttpClient();
  return std::unique_ptr<ClickHouseSink>(new ClickHouseSink(std::move(config), std::move(http)));
}

std::vector<FailedMessage> ClickHouseSink::Prepare(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed;
  rows_.clear();
  messages_.clear();
  using Kind = RecordField::Typed::Kind;
  for (const Message& m : batch) {
    nlohmann::json row = nlohmann::json::object();
    absl::Status bad;
    for (const NamedField& c : config_.columns) {
      auto v = c.field.ReadTyped(m);
      if (!v.ok()) {
        bad = v.status();
        break;
      }
      if (!v->has_value()) continue;  // the column's default
      const RecordField::Typed& t = **v;
      int64_t i = 0;
      double d = 0;
      if (t.kind == Kind::kInt && absl::SimpleAtoi(t.text, &i)) {
        row[c.name] = t.time_ms ? i / 1000 : i;
      } else if (t.kind == Kind::kDouble && absl::SimpleAtod(t.text, &d)) {
        row[c.name] = d;
      } else if (t.kind == Kind::kBool) {
        row[c.name] = t.text == "true" ? 1 : 0;
      } else {
        row[c.name] = t.text;
      }
    }
    if (!bad.ok()) {
      failed.push_back({m, ErrorType::kInvalidMessageError, absl::StrCat("clickhouse sink: ", bad.message())});
      continue;
    }
    rows_.push_back(row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    messages_.push_back(&m);
  }
  return failed;
}

absl::StatusOr<HttpResult> ClickHouseSink::Insert(const std::vector<size_t>& rows) const {
  HttpRequest req;
  req.method = "POST";
  req.url = absl::StrCat(config_.url, "/?query=",
                         UrlEscape(absl::StrCat("INSERT INTO `", config_.database, "`.`", config_.table,
                                                "` FORMAT JSONEachRow")));
  for (size_t r : rows) absl::StrAppend(&req.body, rows_[r], "\n");
  req.headers.push_back(absl::StrCat(
      "Authorization: Basic ", absl::Base64Escape(absl::StrCat(config_.username, ":", config_.password))));
  req.timeout = absl::Milliseconds(config_.request_timeout_ms);
  return http_->Do(req);
}

std::vector<FailedMessage> ClickHouseSink::Execute() {
  std::vector<FailedMessage> failed;
  std::vector<size_t> rows(messages_.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  for (int attempt = 0; !rows.empty(); ++attempt) {
    absl::StatusOr<HttpResult> res = Insert(rows);
    if (res.ok() && res->status >= 200 && res->status < 300) break;
    std::string error = res.ok() ? res->body.substr(0, res->body.find('\n')).substr(0, 300)
                                 : std::string(res.status().message());
    std::string why = res.ok() ? absl::StrCat("HTTP ", res->status, ": ", error) : error;
    int bad = res.ok() ? BadRow(error) : -1;
    if (bad >= 1 && static_cast<size_t>(bad) <= rows.size() && attempt < kIsolationBudget) {
      // The insert was atomic: nothing was written. Leave the bad row out.
      size_t i = rows[bad - 1];
      failed.push_back({*messages_[i], ErrorType::kSink4xxError, absl::StrCat("clickhouse sink: ", why)});
      rows.erase(rows.begin() + (bad - 1));
      continue;
    }
    ErrorType type = !res.ok()             ? ErrorType::kSinkRetryableError
                     : res->status >= 500 ? (bad >= 1 ? ErrorType::kSink4xxError : ErrorType::kSink5xxError)
                                          : ErrorType::kSink4xxError;
    for (size_t r : rows) failed.push_back({*messages_[r], type, absl::StrCat("clickhouse sink: ", why)});
    break;
  }
  rows_.clear();
  messages_.clear();
  return failed;
}

}  // namespace sluice::sink
