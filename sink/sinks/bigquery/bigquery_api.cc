#include "sink/sinks/bigquery/bigquery_api.h"

#include "absl/strings/str_cat.h"

namespace sluice::sink::bigquery {
namespace {

// Google's error body {"error": {"code", "message", ...}} → its message.
std::string ErrorMessage(const HttpResult& res) {
  auto j = nlohmann::json::parse(res.body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_object()) {
    std::string m = j["error"].value("message", "");
    if (!m.empty()) return m.substr(0, 300);
  }
  return "(no error message)";
}

absl::Status StatusOf(const std::string& what, const HttpResult& res) {
  std::string msg = absl::StrCat(what, ": HTTP ", res.status, ": ", ErrorMessage(res));
  switch (res.status) {
    case 401: return absl::UnauthenticatedError(msg);
    case 403: return absl::PermissionDeniedError(msg);
    case 404: return absl::NotFoundError(msg);
    case 409: return absl::AlreadyExistsError(msg);
    case 429:
    case 500:
    case 502:
    case 503:
    case 504: return absl::UnavailableError(msg);
    default: break;
  }
  if (res.status >= 500) return absl::InternalError(msg);
  return absl::InvalidArgumentError(msg);
}

}  // namespace

BigQueryApi::BigQueryApi(ApiTarget target, ServiceAccountKey key, std::shared_ptr<HttpClient> http)
    : target_(std::move(target)),
      key_(std::move(key)),
      http_(std::move(http)),
      auth_(http_.get(), target_.read_timeout) {}

std::string BigQueryApi::DatasetPath() const {
  return absl::StrCat("/bigquery/v2/projects/", UrlEscape(target_.project), "/datasets/",
                      UrlEscape(target_.dataset));
}

std::string BigQueryApi::TablePath() const {
  return absl::StrCat(DatasetPath(), "/tables/", UrlEscape(target_.table));
}

absl::StatusOr<nlohmann::json> BigQueryApi::Call(const std::string& method, const std::string& path,
                                                 std::string body) {
  HttpRequest req;
  req.method = method;
  req.url = target_.base_url + path;
  req.headers = {"Content-Type: application/json", "Accept: application/json"};
  req.body = std::move(body);
  req.timeout = target_.read_timeout;
  req.connect_timeout = target_.connect_timeout;
  req.max_response_bytes = size_t{16} << 20;
  auto res = auth_.Do(key_, kBigQueryScope, std::move(req));
  const std::string what = absl::StrCat("BigQuery ", method, " ", path.substr(path.rfind('/') + 1));
  if (!res.ok()) return absl::Status(res.status().code(), absl::StrCat(what, ": ", res.status().message()));
  if (res->status < 200 || res->status >= 300) return StatusOf(what, *res);
  if (res->body.empty()) return nlohmann::json::object();
  auto j = nlohmann::json::parse(res->body, nullptr, false);
  if (j.is_discarded()) return absl::InternalError(absl::StrCat(what, ": the answer is not JSON"));
  return j;
}

absl::StatusOr<nlohmann::json> BigQueryApi::GetDataset() { return Call("GET", DatasetPath(), ""); }

absl::StatusOr<nlohmann::json> BigQueryApi::InsertDataset(const std::string& location,
                                                          const nlohmann::json& labels) {
  nlohmann::json body = {
      {"datasetReference", {{"projectId", target_.project}, {"datasetId", target_.dataset}}},
      {"location", location}};
  if (!labels.empty()) body["labels"] = labels;
  return Call("POST", absl::StrCat("/bigquery/v2/projects/", UrlEscape(target_.project), "/datasets"),
              body.dump());
}

absl::StatusOr<nlohmann::json> BigQueryApi::PatchDataset(const nlohmann::json& patch) {
  return Call("PATCH", DatasetPath(), patch.dump());
}

absl::StatusOr<nlohmann::json> BigQueryApi::GetTable() { return Call("GET", TablePath(), ""); }

absl::StatusOr<nlohmann::json> BigQueryApi::InsertTable(nlohmann::json table) {
  table["tableReference"] = {
      {"projectId", target_.project}, {"datasetId", target_.dataset}, {"tableId", target_.table}};
  return Call("POST", absl::StrCat(DatasetPath(), "/tables"), table.dump());
}

absl::StatusOr<nlohmann::json> BigQueryApi::PatchTable(const nlohmann::json& patch) {
  return Call("PATCH", TablePath(), patch.dump());
}

absl::StatusOr<nlohmann::json> BigQueryApi::InsertAll(std::string body) {
  return Call("POST", absl::StrCat(TablePath(), "/insertAll"), std::move(body));
}

}  // namespace sluice::sink::bigquery
