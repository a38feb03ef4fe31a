// The BigQuery v2 REST calls the bigquery sink makes (datasets.get/insert,
// tables.get/insert/patch, tabledata.insertAll), authorised with a
// service-account token from common/google_auth.h, through the injected
// HttpClient. Shapes: cloud.google.com/bigquery/docs/reference/rest/v2.
#ifndef SLUICE_SINK_SINKS_BIGQUERY_BIGQUERY_API_H_
#define SLUICE_SINK_SINKS_BIGQUERY_BIGQUERY_API_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/google_auth.h"
#include "common/http_client.h"
#include "nlohmann/json.hpp"

namespace sluice::sink::bigquery {

// The OAuth scope for BigQuery (developers.google.com/identity/protocols/oauth2/scopes#bigquery).
inline constexpr char kBigQueryScope[] = "https://www.googleapis.com/auth/bigquery";

// Where and how to call: base URL (SINK_BIGQUERY_API_BASE_URL, no trailing
// slash), project, dataset, table, timeouts.
struct ApiTarget {
  std::string base_url = "https://bigquery.googleapis.com";
  std::string project, dataset, table;
  absl::Duration read_timeout = absl::Seconds(20);
  absl::Duration connect_timeout = absl::Seconds(20);
};

// One authorised JSON call per method. Every method answers the parsed body
// or a Status: NotFound (404), AlreadyExists (409), InvalidArgument (another
// 4xx, with Google's error message), Unauthenticated/PermissionDenied (401/403,
// or a refused key), Unavailable (429, 500, 502, 503, 504 and transport
// errors), DeadlineExceeded (timeouts), Internal (another 5xx or an answer
// that is not JSON). Thread-compatible.
class BigQueryApi {
 public:
  // Tokens for `key` are exchanged through `http` and cached (GoogleAuth).
  BigQueryApi(ApiTarget target, ServiceAccountKey key, std::shared_ptr<HttpClient> http);

  // datasets.get: the Dataset resource (location, labels, ...).
  absl::StatusOr<nlohmann::json> GetDataset();
  // datasets.insert with `location` and `labels` (an object of strings).
  absl::StatusOr<nlohmann::json> InsertDataset(const std::string& location, const nlohmann::json& labels);
  // datasets.patch with `patch` (labels).
  absl::StatusOr<nlohmann::json> PatchDataset(const nlohmann::json& patch);
  // tables.get: the Table resource (schema.fields, labels, clustering, ...).
  absl::StatusOr<nlohmann::json> GetTable();
  // tables.insert of `table` (a Table resource; tableReference is filled in).
  absl::StatusOr<nlohmann::json> InsertTable(nlohmann::json table);
  // tables.patch with `patch` (schema, labels, clustering...).
  absl::StatusOr<nlohmann::json> PatchTable(const nlohmann::json& patch);
  // tabledata.insertAll with a ready request body (TableDataInsertAllRequest
  // as text, built by the caller for speed); the answer has insertErrors.
  absl::StatusOr<nlohmann::json> InsertAll(std::string body);

  // Where calls go.
  const ApiTarget& target() const { return target_; }

 private:
  absl::StatusOr<nlohmann::json> Call(const std::string& method, const std::string& path, std::string body);
  std::string DatasetPath() const;
  std::string TablePath() const;

  ApiTarget target_;
  ServiceAccountKey key_;
  std::shared_ptr<HttpClient> http_;
  GoogleAuth auth_;
};

}  // namespace sluice::sink::bigquery

#endif  // SLUICE_SINK_SINKS_BIGQUERY_BIGQUERY_API_H_
