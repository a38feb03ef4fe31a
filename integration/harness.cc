#include "integration/harness.h"

#include <curl/curl.h>

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace sluice::integration {

nlohmann::json HttpResponse::Json() const {
  return nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
}

namespace {

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t WriteHeader(char* data, size_t size, size_t n, void* user) {
  absl::string_view line(data, size * n);
  auto colon = line.find(':');
  if (colon != absl::string_view::npos) {
    auto* headers = static_cast<std::map<std::string, std::string>*>(user);
    (*headers)[absl::AsciiStrToLower(line.substr(0, colon))] =
        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return size * n;
}

}  // namespace

HttpResponse Http(absl::string_view method, absl::string_view url, absl::string_view body,
                  const std::vector<std::string>& headers) {
  HttpResponse resp;
  CURL* curl = curl_easy_init();
  std::string u(url), m(method), b(body);
  curl_slist* hdrs = nullptr;
  bool typed = false;  // the caller sets its own Content-Type (e.g. a browser-shaped form)
  for (const auto& h : headers) typed |= absl::StartsWithIgnoreCase(h, "Content-Type:");
  if (!b.empty() && !typed) hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
  for (const auto& h : headers) hdrs = curl_slist_append(hdrs, h.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, u.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, m.c_str());
  if (!b.empty() || m == "POST" || m == "PUT" || m == "PATCH") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, b.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(b.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &resp.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &resp.headers);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp.status);
  } else {
    resp.error = curl_easy_strerror(rc);
  }
  curl_slist_free_all(hdrs);
  curl_easy_cleanup(curl);
  return resp;
}

namespace {

std::string RandomToken() {
  std::random_device rd;
  std::string out;
  for (int i = 0; i < 32; ++i) out += "0123456789abcdef"[rd() % 16];
  return out;
}

YAML::Node Sequence(const std::vector<std::string>& items) {
  YAML::Node n(YAML::NodeType::Sequence);
  for (const auto& i : items) n.push_back(i);
  return n;
}

}  // namespace

std::string Stack::EffectiveConfig() const {
  YAML::Node root = options_.config_yaml.empty() ? YAML::Node(YAML::NodeType::Map)
                                                 : YAML::Load(options_.config_yaml);
  if (!root["auth"]) {
    root["auth"]["mode"] = "header";
    root["auth"]["header"]["proxy_token_env"] = "SLUICE_PROXY_TOKEN";
  }
  if (!root["access"] || !root["access"]["admins"]) {
    root["access"]["admins"] = Sequence(kTestAccessAdmins);
  }
  if (!root["notification"] || !root["notification"]["admins"]) {
    root["notification"]["admins"] = Sequence(kTestNotificationAdmins);
  }
  if (!root["notification"]["alert_hook_tokens"]) {
    YAML::Node any;
    any["provider"] = "*";
    any["token_env"] = "SLUICE_TEST_ALERT_TOKEN";
    root["notification"]["alert_hook_tokens"].push_back(any);
  }
  if (!root["notification"]["alert_hook_secrets"]) {
    YAML::Node any;
    any["provider"] = "*";
    any["secret_env"] = "SLUICE_TEST_ALERT_HOOK_SECRET";
    root["notification"]["alert_hook_secrets"].push_back(any);
  }
  YAML::Emitter out;
  out << root;
  return out.c_str();
}

std::unique_ptr<grpc::ClientContext> Stack::GrpcContext(const std::string& email) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (!email.empty()) ctx->AddMetadata("x-auth-email", email);
  ctx->AddMetadata("x-sluice-proxy-token", proxy_token_);
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return ctx;
}

nlohmann::json ProviderCredentials(const std::string& dsn) {
  nlohmann::json creds = nlohmann::json::object();
  for (absl::string_view kv : absl::StrSplit(dsn, ' ', absl::SkipEmpty())) {
    std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    creds[p.first] = p.second;
  }
  return creds;
}

absl::StatusOr<std::unique_ptr<Stack>> Stack::Start(Options options) {
  std::unique_ptr<Stack> s(new Stack());
  s->options_ = std::move(options);
  s->proxy_token_ = RandomToken();
  auto db = db::TestDatabase::Create();
  if (!db.ok()) return db.status();
  s->db_ = std::move(*db);
  const char* tmp = std::getenv("TEST_TMPDIR");
  s->log_dir_ = tmp ? tmp : "/tmp";
  s->grpc_port_ = FreePort();
  s->http_port_ = FreePort();
  s->metrics_port_ = FreePort();
  s->gateway_metrics_port_ = FreePort();
  s->grpc_target_ = absl::StrCat("127.0.0.1:", s->grpc_port_);
  s->http_base_ = absl::StrCat("http://127.0.0.1:", s->http_port_);
  if (auto st = s->StartServer(); !st.ok()) return st;
  std::vector<std::string> gw_argv = {Runfile("gateway/sluice-gateway"), "--http_host",
                                      "127.0.0.1", "--http_port", std::to_string(s->http_port_),
                                      "--backend", s->grpc_target_, "--metrics_host", "127.0.0.1", "--metrics_port",
                                      std::to_string(s->gateway_metrics_port_)};
  gw_argv.insert(gw_argv.end(), s->options_.gateway_args.begin(), s->options_.gateway_args.end());
  std::map<std::string, std::string> gw_env = s->options_.gateway_env;
  if (!s->options_.gateway_without_token) gw_env["SLUICE_PROXY_TOKEN"] = s->proxy_token_;
  auto gw = Process::Start(gw_argv, gw_env,
                           absl::StrCat(s->log_dir_, "/gateway-", s->http_port_, ".log"));
  if (!gw.ok()) return gw.status();
  s->gateway_ = std::move(*gw);
  if (auto st = WaitForPort(s->http_port_, absl::Seconds(20)); !st.ok()) {
    return absl::UnavailableError(absl::StrCat("gateway did not start: ", s->gateway_->Output()));
  }
  return s;
}

std::map<std::string, std::string> Stack::ServerEnv() const {
  auto env = options_.server_env;
  env["SLUICE_DB_DSN"] = db_->dsn();
  env.emplace("SLUICE_PROXY_TOKEN", proxy_token_);
  env.emplace("SLUICE_TEST_ALERT_TOKEN", kTestAlertToken);
  env.emplace("SLUICE_TEST_ALERT_HOOK_SECRET", kTestAlertHookSecret);
  env.emplace("SLUICE_ENCRYPTION_KEY",
              "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  return env;
}

absl::Status Stack::StartServer() {
  std::vector<std::string> argv = {Runfile("server/sluice-server"), "--grpc_port",
                                   std::to_string(grpc_port_), "--metrics_port",
                                   std::to_string(metrics_port_)};
  argv.insert(argv.end(), options_.server_args.begin(), options_.server_args.end());
  std::string path = absl::StrCat(log_dir_, "/server-", grpc_port_, ".yaml");
  std::ofstream(path) << EffectiveConfig();
  argv.push_back("--config");
  argv.push_back(path);
  auto server = Process::Start(argv, ServerEnv(), absl::StrCat(log_dir_, "/server-", grpc_port_, "-", ++server_starts_, ".log"));
  if (!server.ok()) return server.status();
  server_ = std::move(*server);
  if (auto st = WaitForPort(grpc_port_, absl::Seconds(60)); !st.ok()) {
    return absl::UnavailableError(absl::StrCat("sluice-server did not start: ", server_->Output()));
  }
  return absl::OkStatus();
}

absl::Status Stack::RestartServer(std::string config_yaml) {
  server_->Stop();
  if (!config_yaml.empty()) options_.config_yaml = std::move(config_yaml);
  if (auto st = StartServer(); !st.ok()) return st;
  // The gateway reconnects with backoff: wait until it reaches the new server.
  absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (Http("GET", http_base_ + "/healthz").status != 200) {
    if (absl::Now() > deadline) return absl::UnavailableError("gateway did not reconnect");
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::OkStatus();
}

Stack::~Stack() {
  if (gateway_) gateway_->Stop();
  if (server_) server_->Stop();
}

}  // namespace sluice::integration
