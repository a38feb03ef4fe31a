#include "integration/node_fake.h"

#include "absl/strings/str_cat.h"

namespace sluice::integration {

absl::Status NodeFake::StartScript(const std::string& script) {
  int port = FreePort();
  auto p = Process::Start({"/usr/bin/env", "node", Runfile(script), "--port", std::to_string(port)});
  if (!p.ok()) return p.status();
  process_ = std::move(*p);
  if (absl::Status st = WaitForPort(port, absl::Seconds(20)); !st.ok()) return st;
  http_ = NewCurlHttpClient();
  host_port_ = absl::StrCat("127.0.0.1:", port);
  base_url_ = absl::StrCat("http://", host_port_);
  return absl::OkStatus();
}

nlohmann::json NodeFake::Control(const std::string& method, const std::string& path,
                                 const nlohmann::json& body) {
  HttpRequest req;
  req.method = method;
  req.url = base_url_ + path;
  req.headers = {"Content-Type: application/json"};
  if (method != "GET") req.body = body.dump();
  req.max_response_bytes = size_t{64} << 20;  // document and object dumps
  auto res = http_->Do(req);
  if (!res.ok() || res->status < 200 || res->status > 299) return nullptr;
  return nlohmann::json::parse(res->body, nullptr, false);
}

}  // namespace sluice::integration
