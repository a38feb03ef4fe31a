// Child processes, ports and polling for the end-to-end tests and benches:
// the one place that forks the real binaries (sluice-server, the gateway,
// sluice-sink, the dev broker, sluicectl, psql, Alertmanager, ...).
#ifndef SLUICE_INTEGRATION_PROCESS_H_
#define SLUICE_INTEGRATION_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sluice::integration {

// Absolute path of a runfile given its workspace-relative path, e.g.
// "server/sluice-server" (uses TEST_SRCDIR/TEST_WORKSPACE under bazel test;
// otherwise the path itself, relative to the working directory).
std::string Runfile(absl::string_view path);

// A port on 127.0.0.1 that was free a moment ago (bound, then released).
int FreePort();

// Polls until 127.0.0.1:`port` accepts TCP connections; DeadlineExceeded after `timeout`.
absl::Status WaitForPort(int port, absl::Duration timeout);

// Polls `cond` every 50 ms until it is true (true) or `timeout` passed (its
// last value).
bool WaitFor(const std::function<bool()>& cond, absl::Duration timeout);

// A fresh directory `name` under TEST_TMPDIR (/tmp outside bazel).
std::string TempDir(const std::string& name);

// Lines of `text` containing `needle`.
int CountLines(const std::string& text, const std::string& needle);

// A "Name:  123 kB" line of /proc/<pid>/status (e.g. "VmRSS", "VmHWM"), in
// kB; -1 when absent (or the process is gone).
int64_t StatusKb(pid_t pid, const char* name);

// CPU time (user + system, all threads) of `pid` so far, from /proc/<pid>/stat
// (clock ticks: 10 ms resolution); zero when the process is gone.
absl::Duration CpuTime(pid_t pid);

// A child process in its own process group, its stdout and stderr in files.
// The destructor stops it (SIGTERM, then SIGKILL after 5 s) and reaps it.
class Process {
 public:
  struct Options {
    // Added to the environment (and overriding it).
    std::map<std::string, std::string> env;
    // Start from an empty environment except PATH, HOME, TMPDIR, TEST_TMPDIR
    // and LD_LIBRARY_PATH, so the child sees exactly `env`.
    bool clean_env = false;
    // File for stdout (truncated); empty: a new file under TEST_TMPDIR.
    std::string stdout_path;
    // File for stderr (truncated); empty: stderr goes to the stdout file.
    std::string stderr_path;
  };

  // Forks and execs argv[0] (a path, not searched in PATH). InternalError when
  // fork fails; an exec failure shows as exit code 127.
  static absl::StatusOr<std::unique_ptr<Process>> Start(std::vector<std::string> argv,
                                                        Options options);
  // Start with `env` added to this process's environment and stdout+stderr
  // in `log_path` (a new file when empty).
  static absl::StatusOr<std::unique_ptr<Process>> Start(
      std::vector<std::string> argv, std::map<std::string, std::string> env = {},
      std::string log_path = "");

  ~Process();

  // Sends `sig` to the child (nothing once it was reaped).
  void Signal(int sig);
  // SIGTERM, then SIGKILL after `grace`; returns the raw waitpid status
  // (also when it had exited before).
  int Stop(absl::Duration grace = absl::Seconds(10));
  // SIGKILL now and reap.
  void Kill9();
  // True while the child has not exited (reaps it when it has).
  bool Running();
  // Waits up to `timeout` for the child to exit: its exit code, 128+signal
  // when a signal ended it, or -1 on timeout (it keeps running).
  int Wait(absl::Duration timeout);

  pid_t pid() const { return pid_; }
  // What the child wrote to its stdout file so far (with stderr, unless
  // Options::stderr_path was given).
  std::string Output() const;
  // What the child wrote to stderr so far (Output() when they share a file).
  std::string Stderr() const;

 private:
  Process() = default;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string stdout_path_, stderr_path_;
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_PROCESS_H_
