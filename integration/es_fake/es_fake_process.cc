#include "integration/es_fake/es_fake_process.h"

#include "absl/strings/str_cat.h"

namespace sluice::integration {

absl::StatusOr<std::unique_ptr<EsFake>> EsFake::Start() {
  std::unique_ptr<EsFake> fake(new EsFake());
  int port = FreePort();
  auto p = Process::Start({"/usr/bin/env", "node", Runfile("integration/es_fake/es_fake.js"),
                           "--port", std::to_string(port)});
  if (!p.ok()) return p.status();
  fake->process_ = std::move(*p);
  if (auto st = WaitForPort(port, absl::Seconds(20)); !st.ok()) return st;
  fake->http_ = NewCurlHttpClient();
  fake->host_port_ = absl::StrCat("127.0.0.1:", port);
  fake->base_url_ = absl::StrCat("http://", fake->host_port_);
  return fake;
}

nlohmann::json EsFake::Control(const std::string& method, const std::string& path,
                               const nlohmann::json& body) {
  HttpRequest req;
  req.method = method;
  req.url = base_url_ + path;
  req.headers = {"Content-Type: application/json"};
  if (method != "GET") req.body = body.dump();
  req.max_response_bytes = size_t{64} << 20;
  auto res = http_->Do(req);
  if (!res.ok() || res->status < 200 || res->status > 299) return nullptr;
  return nlohmann::json::parse(res->body, nullptr, false);
}

}  // namespace sluice::integration
