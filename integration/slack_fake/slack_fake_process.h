// Starts integration/slack_fake/slack_fake.js (node) on a free loopback port
// for one test suite and drives its control endpoints (/_fake/...).
#ifndef SLUICE_INTEGRATION_SLACK_FAKE_SLACK_FAKE_PROCESS_H_
#define SLUICE_INTEGRATION_SLACK_FAKE_SLACK_FAKE_PROCESS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "integration/node_fake.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {

class SlackFake : public NodeFake {
 public:
  // `node slack_fake.js --port <free port>`, ready when the port accepts.
  static absl::StatusOr<std::unique_ptr<SlackFake>> Start();
  // The Web API base URL ("http://127.0.0.1:<port>/api").
  std::string ApiUrl() const { return base_url() + "/api"; }
  // {apps: [...], channels: [...], users: [...], tokens: [...]}: see slack_fake.js.
  void Setup(const nlohmann::json& setup) { Control("POST", "/_fake/setup", setup); }
  // {method, error | status, retry_after, times}: the next calls fail.
  void Fail(const nlohmann::json& failure) { Control("POST", "/_fake/fail", failure); }
  // {messages, exchanged, calls}.
  nlohmann::json State() { return Control("GET", "/_fake/state"); }
  void Reset() { Control("POST", "/_fake/reset"); }
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_SLACK_FAKE_SLACK_FAKE_PROCESS_H_
