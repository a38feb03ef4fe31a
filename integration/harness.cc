#include "integration/harness.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sluice::integration {

std::string Runfile(absl::string_view path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir && ws) return absl::StrCat(srcdir, "/", ws, "/", path);
  return std::string(path);
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

absl::Status WaitForPort(int port, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    int rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    close(fd);
    if (rc == 0) return absl::OkStatus();
    absl::SleepFor(absl::Milliseconds(50));
  }
  return absl::DeadlineExceededError(absl::StrCat("port ", port, " not listening"));
}

absl::StatusOr<std::unique_ptr<Process>> Process::Start(std::vector<std::string> argv,
                                                        std::map<std::string, std::string> env,
                                                        std::string log_path) {
  std::unique_ptr<Process> p(new Process());
  if (log_path.empty()) {
    const char* tmp = std::getenv("TEST_TMPDIR");
    log_path = absl::StrCat(tmp ? tmp : "/tmp", "/proc-", getpid(), "-", rand(), ".log");
  }
  p->log_path_ = log_path;
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    setpgid(0, 0);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(args[0], args.data());
    fprintf(stderr, "exec %s failed\n", args[0]);
    _exit(127);
  }
  p->pid_ = pid;
  return p;
}

bool Process::Running() {
  if (reaped_) return false;
  pid_t r = waitpid(pid_, &status_, WNOHANG);
  if (r == pid_) reaped_ = true;
  return !reaped_;
}

int Process::WaitExit(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (Running() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
  if (Running()) return -1;
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
}

int Process::Stop(absl::Duration grace) {
  if (!Running()) return reaped_ ? status_ : -1;
  kill(pid_, SIGTERM);
  absl::Time deadline = absl::Now() + grace;
  while (Running() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
  if (Running()) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
    reaped_ = true;
  }
  return status_;
}

void Process::Kill9() {
  if (!Running()) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, &status_, 0);
  reaped_ = true;
}

Process::~Process() { Stop(absl::Seconds(5)); }

std::string Process::Log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
  if (!b.empty()) hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
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

absl::StatusOr<std::unique_ptr<Stack>> Stack::Start(Options options) {
  std::unique_ptr<Stack> s(new Stack());
  s->options_ = std::move(options);
  auto db = db::TestDatabase::Create();
  if (!db.ok()) return db.status();
  s->db_ = std::move(*db);
  const char* tmp = std::getenv("TEST_TMPDIR");
  s->log_dir_ = tmp ? tmp : "/tmp";
  s->grpc_port_ = FreePort();
  s->http_port_ = FreePort();
  s->metrics_port_ = FreePort();
  s->grpc_target_ = absl::StrCat("127.0.0.1:", s->grpc_port_);
  s->http_base_ = absl::StrCat("http://127.0.0.1:", s->http_port_);
  if (auto st = s->StartServer(); !st.ok()) return st;
  auto gw = Process::Start({Runfile("gateway/sluice-gateway"), "--http_port",
                            std::to_string(s->http_port_), "--backend", s->grpc_target_},
                           {}, absl::StrCat(s->log_dir_, "/gateway-", s->http_port_, ".log"));
  if (!gw.ok()) return gw.status();
  s->gateway_ = std::move(*gw);
  if (auto st = WaitForPort(s->http_port_, absl::Seconds(20)); !st.ok()) {
    return absl::UnavailableError(absl::StrCat("gateway did not start: ", s->gateway_->Log()));
  }
  return s;
}

absl::Status Stack::StartServer() {
  std::vector<std::string> argv = {Runfile("server/sluice-server"), "--grpc_port",
                                   std::to_string(grpc_port_), "--metrics_port",
                                   std::to_string(metrics_port_)};
  argv.insert(argv.end(), options_.server_args.begin(), options_.server_args.end());
  auto env = options_.server_env;
  env["SLUICE_DB_DSN"] = db_->dsn();
  auto server = Process::Start(argv, env, absl::StrCat(log_dir_, "/server-", grpc_port_, ".log"));
  if (!server.ok()) return server.status();
  server_ = std::move(*server);
  if (auto st = WaitForPort(grpc_port_, absl::Seconds(60)); !st.ok()) {
    return absl::UnavailableError(absl::StrCat("sluice-server did not start: ", server_->Log()));
  }
  return absl::OkStatus();
}

absl::Status Stack::RestartServer() {
  server_->Stop();
  return StartServer();
}

Stack::~Stack() {
  if (gateway_) gateway_->Stop();
  if (server_) server_->Stop();
}

}  // namespace sluice::integration
