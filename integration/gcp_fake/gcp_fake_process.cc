#include "integration/gcp_fake/gcp_fake_process.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace sluice::integration {

absl::StatusOr<std::unique_ptr<GcpFake>> GcpFake::Start() {
  std::unique_ptr<GcpFake> fake(new GcpFake());
  int port = FreePort();
  auto p = Process::Start({"/usr/bin/env", "node", Runfile("integration/gcp_fake/gcp_fake.js"),
                           "--port", std::to_string(port)});
  if (!p.ok()) return p.status();
  fake->process_ = std::move(*p);
  if (auto st = WaitForPort(port, absl::Seconds(20)); !st.ok()) return st;
  fake->http_ = NewCurlHttpClient();
  fake->base_url_ = absl::StrCat("http://127.0.0.1:", port);
  return fake;
}

nlohmann::json GcpFake::Control(const std::string& method, const std::string& path,
                                const nlohmann::json& body) {
  HttpRequest req;
  req.method = method;
  req.url = base_url_ + path;
  req.headers = {"Content-Type: application/json"};
  if (method != "GET") req.body = body.dump();
  auto res = http_->Do(req);
  if (!res.ok() || res->status != 200) return nullptr;
  return nlohmann::json::parse(res->body, nullptr, false);
}

nlohmann::json GcpFake::NewKey(const std::string& project_id) {
  return Control("POST", "/_fake/service_accounts", {{"project_id", project_id}});
}

std::string GcpFake::NewKeyBase64(const std::string& project_id) {
  return absl::Base64Escape(NewKey(project_id).dump());
}

nlohmann::json GcpFake::Credentials(const std::string& resource_name, int timeout_ms) {
  std::string project = resource_name.substr(resource_name.find('/') + 1);
  return {{"service_account_key", NewKeyBase64(project)},
          {"resource_name", resource_name},
          {"api_base_url", base_url_},
          {"request_timeout_ms", timeout_ms}};
}

}  // namespace sluice::integration
