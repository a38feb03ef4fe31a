// Starts integration/lark_fake/lark_fake.js (node) on a free loopback port
// for one test suite and drives its control endpoints (/_fake/...).
#ifndef SLUICE_INTEGRATION_LARK_FAKE_LARK_FAKE_PROCESS_H_
#define SLUICE_INTEGRATION_LARK_FAKE_LARK_FAKE_PROCESS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "integration/node_fake.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {

class LarkFake : public NodeFake {
 public:
  // `node lark_fake.js --port <free port>`, ready when the port accepts.
  static absl::StatusOr<std::unique_ptr<LarkFake>> Start();
  // {apps: [{app_id, app_secret}], chats: [{chat_id, name, member}], users: [{email}]}.
  void Setup(const nlohmann::json& setup) { Control("POST", "/_fake/setup", setup); }
  // {path (substring), status, code, reset, times}: the next calls fail.
  void Fail(const nlohmann::json& failure) { Control("POST", "/_fake/fail", failure); }
  // {messages, tokens_issued, calls}.
  nlohmann::json State() { return Control("GET", "/_fake/state"); }
  void Reset() { Control("POST", "/_fake/reset"); }
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_LARK_FAKE_LARK_FAKE_PROCESS_H_
