#include "integration/process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include <cstring>
#include <iterator>

extern char** environ;

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

bool WaitFor(const std::function<bool()>& cond, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (cond()) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return cond();
}

std::string TempDir(const std::string& name) {
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(base ? base : "/tmp", "/", name);
  mkdir(dir.c_str(), 0755);
  return dir;
}

int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.find(needle) != absl::string_view::npos) ++n;
  }
  return n;
}

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The child's environment as "K=V" strings.
std::vector<std::string> ChildEnv(const Process::Options& o) {
  std::map<std::string, std::string> env;
  if (o.clean_env) {
    for (const char* keep : {"PATH", "HOME", "TMPDIR", "TEST_TMPDIR", "LD_LIBRARY_PATH"}) {
      if (const char* v = getenv(keep)) env[keep] = v;
    }
  } else {
    for (char** e = environ; *e != nullptr; ++e) {
      absl::string_view kv(*e);
      auto eq = kv.find('=');
      if (eq != absl::string_view::npos) env[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
    }
  }
  for (const auto& [k, v] : o.env) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(absl::StrCat(k, "=", v));
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Process>> Process::Start(std::vector<std::string> argv,
                                                        Options o) {
  static std::atomic<int> started{0};
  std::unique_ptr<Process> p(new Process());
  if (o.stdout_path.empty()) {
    const char* tmp = std::getenv("TEST_TMPDIR");
    o.stdout_path = absl::StrCat(tmp ? tmp : "/tmp", "/proc-", getpid(), "-", ++started, ".log");
  }
  p->stdout_path_ = o.stdout_path;
  p->stderr_path_ = o.stderr_path.empty() ? o.stdout_path : o.stderr_path;
  // Everything the child needs is built before fork (no allocation after it).
  std::vector<std::string> env = ChildEnv(o);
  std::vector<char*> args, envp;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    int out = open(p->stdout_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = p->stderr_path_ == p->stdout_path_
                  ? out
                  : open(p->stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) dup2(out, 1);
    if (err >= 0) dup2(err, 2);
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  p->pid_ = pid;
  return p;
}

absl::StatusOr<std::unique_ptr<Process>> Process::Start(std::vector<std::string> argv,
                                                        std::map<std::string, std::string> env,
                                                        std::string log_path) {
  Options o;
  o.env = std::move(env);
  o.stdout_path = std::move(log_path);
  return Start(std::move(argv), std::move(o));
}

Process::~Process() { Stop(absl::Seconds(5)); }

void Process::Signal(int sig) {
  if (!reaped_) kill(pid_, sig);
}

bool Process::Running() {
  if (reaped_) return false;
  if (waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
  return !reaped_;
}

int Process::Wait(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (Running()) {
    if (absl::Now() > deadline) return -1;
    absl::SleepFor(absl::Milliseconds(20));
  }
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return -1;
}

int Process::Stop(absl::Duration grace) {
  if (!Running()) return reaped_ ? status_ : -1;
  kill(pid_, SIGTERM);
  if (Wait(grace) == -1 && Running()) Kill9();
  return status_;
}

void Process::Kill9() {
  if (!Running()) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, &status_, 0);
  reaped_ = true;
}

std::string Process::Output() const { return ReadFile(stdout_path_); }

std::string Process::Stderr() const { return ReadFile(stderr_path_); }

int64_t StatusKb(pid_t pid, const char* name) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  const size_t len = std::strlen(name);
  while (std::getline(in, line)) {
    if (line.compare(0, len, name) == 0 && line.size() > len && line[len] == ':') {
      return std::atoll(line.c_str() + len + 1);
    }
  }
  return -1;
}

absl::Duration CpuTime(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return absl::ZeroDuration();
  std::vector<std::string> f = absl::StrSplit(stat.substr(close + 2), ' ');
  if (f.size() < 13) return absl::ZeroDuration();  // fields 14 utime, 15 stime of proc(5)
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  return absl::Seconds((std::atof(f[11].c_str()) + std::atof(f[12].c_str())) / ticks);
}

}  // namespace sluice::integration
