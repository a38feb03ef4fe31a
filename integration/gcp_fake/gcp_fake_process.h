// Starts integration/gcp_fake/gcp_fake.js (node) on a free loopback port for
// one test and drives its control endpoints (/_fake/...). See README.md.
#ifndef SLUICE_INTEGRATION_GCP_FAKE_GCP_FAKE_PROCESS_H_
#define SLUICE_INTEGRATION_GCP_FAKE_GCP_FAKE_PROCESS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "integration/node_fake.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {

class GcpFake : public NodeFake {
 public:
  // `node gcp_fake.js --port <free port>`, ready when the port accepts.
  static absl::StatusOr<std::unique_ptr<GcpFake>> Start();

  // A new service-account key JSON the fake's token endpoint accepts.
  nlohmann::json NewKey(const std::string& project_id);
  // Base64 of NewKey(project_id).dump(): credentials.service_account_key.
  std::string NewKeyBase64(const std::string& project_id);
  // Provider credentials for `resource_name` with a new key, api_base_url
  // and request_timeout_ms.
  nlohmann::json Credentials(const std::string& resource_name, int timeout_ms = 2000);
  // {bigquery: {<project>: {datasets: {<id>: {labels, access, tables: {<id>: {labels}}}}}},
  //  buckets: {<name>: {project, labels}}, projects: [..], organizations: [..]}
  void Seed(const nlohmann::json& seed) { Control("POST", "/_fake/seed", seed); }
  // {method?, path (substring), status?, count? (1; -1 forever), delay_ms?}
  void Fault(const nlohmann::json& fault) { Control("POST", "/_fake/faults", fault); }
  void ClearFaults() { Control("DELETE", "/_fake/faults"); }
  void Configure(const nlohmann::json& config) { Control("POST", "/_fake/config", config); }
  nlohmann::json State() { return Control("GET", "/_fake/state"); }
  // {<object name>: <content>} of a Cloud Storage bucket.
  nlohmann::json Objects(const std::string& bucket) {
    return Control("GET", "/_fake/objects/" + bucket);
  }
  nlohmann::json Stats() { return Control("GET", "/_fake/stats"); }
  // Appends Cloud Audit Logs entries (LogEntry JSON; insertId and logName
  // defaulted) under project `project` (cloud_logging.js).
  void LogEntries(const nlohmann::json& entries, const std::string& project) {
    Control("POST", "/_fake/logging/entries", {{"entries", entries}, {"project", project}});
  }
  void Reset() { Control("POST", "/_fake/reset"); }

 private:
  GcpFake() = default;
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_GCP_FAKE_GCP_FAKE_PROCESS_H_
