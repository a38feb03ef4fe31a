// Starts integration/es_fake/es_fake.js (node) on a free loopback port for
// one test or benchmark and drives its control endpoints (/_fake/...). See
// README.md beside it.
#ifndef SLUICE_INTEGRATION_ES_FAKE_ES_FAKE_PROCESS_H_
#define SLUICE_INTEGRATION_ES_FAKE_ES_FAKE_PROCESS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "integration/node_fake.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {

class EsFake : public NodeFake {
 public:
  // `node es_fake.js --port <free port>`, ready when the port accepts.
  // Unavailable when node is missing or the fake does not come up in 20 s.
  static absl::StatusOr<std::unique_ptr<EsFake>> Start();


  // Drops every document, fault and counter.
  void Reset() { Control("POST", "/_fake/reset"); }
  // Fails the next matching bulk items: {status, count? (1; -1 forever),
  // id? (only that _id), index?, type?, reason?} (type and reason default
  // to Elasticsearch's for the status, e.g. 429 es_rejected_execution_exception).
  void ItemFault(const nlohmann::json& fault) { Control("POST", "/_fake/item_faults", fault); }
  void ClearItemFaults() { Control("DELETE", "/_fake/item_faults"); }
  // Refuses every API request (not /_fake/) for `ms` milliseconds or the
  // next `requests` requests: mode "status" answers `status` (503), mode
  // "reset" drops the connection. {ms?, requests?, mode?, status?}
  void Outage(const nlohmann::json& outage) { Control("POST", "/_fake/outage", outage); }
  void EndOutage() { Control("DELETE", "/_fake/outage"); }
  // {version?: "6.8.23"}: the version GET / reports; below 8 a bulk `_type` is taken.
  void Configure(const nlohmann::json& config) { Control("POST", "/_fake/config", config); }
  // Indexes `source` as document `id` through the index API; true when stored.
  bool PutDoc(const std::string& index, const std::string& id, const nlohmann::json& source) {
    return !Control("PUT", "/" + index + "/_doc/" + id, source).is_null();
  }
  // {<id>: {source, version, routing, type}} of `index` ({} when it does not exist).
  nlohmann::json Docs(const std::string& index) { return Control("GET", "/_fake/docs/" + index); }
  // {bulkRequests, bulkItems, itemStatus: {<status>: n}, refusedRequests,
  //  lastBulk: {path, query, contentType, items}}
  nlohmann::json Stats() { return Control("GET", "/_fake/stats"); }

 private:
  EsFake() = default;
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_ES_FAKE_ES_FAKE_PROCESS_H_
