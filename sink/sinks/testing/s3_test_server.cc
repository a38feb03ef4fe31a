#include "sink/sinks/testing/s3_test_server.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "sink/sinks/testing/server_process.h"

namespace sluice::sink::testing {

namespace {

constexpr char kSuffix[] = "._S3rver_object";

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
  std::string modules(absl::StripAsciiWhitespace(RunShell(InstallScript() + " 2>/dev/null")));
  std::string script = modules + "/s3rver/bin/s3rver.js";
  if (modules.empty() || !std::filesystem::exists(script)) {
    return absl::UnavailableError("s3rver is not installed: run scripts/install-deps.sh");
  }
  auto s = std::unique_ptr<S3TestServer>(new S3TestServer());
  s->port_ = FreeLoopbackPort();
  s->bucket_ = bucket;
  s->dir_ = PrivateDir(absl::StrCat("s3rver-", s->port_));
  std::string port = std::to_string(s->port_);
  s->pid_ = SpawnQuiet({"node", script, "-d", s->dir_, "-a", "127.0.0.1", "-p", port,
                        "--configure-bucket", bucket, "--silent"});
  if (s->pid_ < 0) return absl::UnavailableError("fork failed");
  std::string probe = absl::StrCat("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:", port, "/");
  absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (RunShell(probe) != "200") {
    if (absl::Now() > give_up) return absl::UnavailableError("s3rver did not answer");
    absl::SleepFor(absl::Milliseconds(100));
  }
  return s;
}

S3TestServer::~S3TestServer() { Kill(); }

void S3TestServer::Kill() { KillAndReap(&pid_); }

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
