#include "sink/sinks/testing/s3_test_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace sluice::sink::testing {
namespace {

constexpr char kSuffix[] = "._S3rver_object";

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

std::string Run(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// scripts/install-npm-deps.sh in the runfiles (or the source tree).
std::string InstallScript() {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* ws = getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && ws != nullptr) {
    std::string p = absl::StrCat(srcdir, "/", ws, "/scripts/install-npm-deps.sh");
    if (std::filesystem::exists(p)) return p;
  }
  return "scripts/install-npm-deps.sh";
}

}  // namespace

absl::StatusOr<std::unique_ptr<S3TestServer>> S3TestServer::Start(const std::string& bucket) {
  std::string modules(absl::StripAsciiWhitespace(Run(InstallScript() + " 2>/dev/null")));
  std::string script = modules + "/s3rver/bin/s3rver.js";
  if (modules.empty() || !std::filesystem::exists(script)) {
    return absl::UnavailableError("s3rver is not installed: run scripts/install-deps.sh");
  }
  auto s = std::unique_ptr<S3TestServer>(new S3TestServer());
  s->port_ = FreePort();
  s->bucket_ = bucket;
  const char* base = getenv("TEST_TMPDIR");
  s->dir_ = absl::StrCat(base ? base : "/tmp", "/s3rver-", s->port_);
  mkdir(s->dir_.c_str(), 0700);
  std::string port = std::to_string(s->port_);
  s->pid_ = fork();
  if (s->pid_ == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execlp("node", "node", script.c_str(), "-d", s->dir_.c_str(), "-a", "127.0.0.1", "-p", port.c_str(),
           "--configure-bucket", bucket.c_str(), "--silent", nullptr);
    _exit(127);
  }
  if (s->pid_ < 0) return absl::UnavailableError("fork failed");
  std::string probe = absl::StrCat("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:", port, "/");
  absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (Run(probe) != "200") {
    if (absl::Now() > give_up) return absl::UnavailableError("s3rver did not answer");
    absl::SleepFor(absl::Milliseconds(100));
  }
  return s;
}

S3TestServer::~S3TestServer() { Kill(); }

void S3TestServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string S3TestServer::endpoint() const { return absl::StrCat("http://127.0.0.1:", port_); }

std::vector<std::string> S3TestServer::Objects() const {
  std::vector<std::string> out;
  std::string root = dir_ + "/" + bucket_ + "/";
  if (!std::filesystem::exists(root)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    std::string p = e.path().string();
    if (!absl::EndsWith(p, kSuffix)) continue;
    out.push_back(p.substr(root.size(), p.size() - root.size() - (sizeof(kSuffix) - 1)));
  }
  return out;
}

std::string S3TestServer::Object(const std::string& name) const {
  std::ifstream in(absl::StrCat(dir_, "/", bucket_, "/", name, kSuffix), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace sluice::sink::testing
