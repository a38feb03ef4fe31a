// The common part of the repo's fake HTTP APIs written in Node.js
// (integration/gcp_fake, integration/es_fake): the script runs on a free
// loopback port for one test or benchmark, and its JSON control endpoints
// (/_fake/...) are called over HTTP.
#ifndef SLUICE_INTEGRATION_NODE_FAKE_H_
#define SLUICE_INTEGRATION_NODE_FAKE_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "common/http_client.h"
#include "integration/process.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {

class NodeFake {
 public:
  virtual ~NodeFake() = default;

  // "http://127.0.0.1:<port>".
  const std::string& base_url() const { return base_url_; }
  // "127.0.0.1:<port>".
  const std::string& host_port() const { return host_port_; }

  // A control (or API) call with `body` as JSON (not sent for GET); the
  // parsed answer, or null on a transport error or a status other than 2xx.
  nlohmann::json Control(const std::string& method, const std::string& path,
                         const nlohmann::json& body = nlohmann::json::object());

 protected:
  NodeFake() = default;
  // Runs `node <script> --port <free port>` (`script` a runfile path such as
  // "integration/es_fake/es_fake.js"); Unavailable when node is missing or the
  // port does not accept within 20 s.
  absl::Status StartScript(const std::string& script);

 private:
  std::unique_ptr<Process> process_;
  std::unique_ptr<HttpClient> http_;
  std::string base_url_;
  std::string host_port_;
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_NODE_FAKE_H_
