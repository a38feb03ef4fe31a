// Helpers for sluice-sink's end-to-end tests: spawn the real binaries
// (sluice-devbroker, sluice-sink) as child processes, produce records, and
// read committed offsets with librdkafka.
#ifndef SLUICE_INTEGRATION_SINK_HARNESS_H_
#define SLUICE_INTEGRATION_SINK_HARNESS_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace sluice::integration {

// A child process with stdout/stderr redirected to files.
class Process {
 public:
  // Starts `argv` with exactly `env` (plus PATH/HOME/TMPDIR from this process).
  static std::unique_ptr<Process> Start(const std::vector<std::string>& argv,
                                        const std::map<std::string, std::string>& env,
                                        const std::string& out_path, const std::string& err_path);
  ~Process();  // SIGKILLs and reaps a running child

  void Signal(int sig);
  // Exit code, 128+signal when killed, or -1 on timeout.
  int Wait(absl::Duration timeout);
  bool Running();
  std::string Stdout() const;
  std::string Stderr() const;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  bool reaped_ = false;
  std::string out_path_, err_path_;
};

// A fresh directory under TEST_TMPDIR.
std::string TempDir(const std::string& name);

// Polls `cond` every 50 ms until true or `timeout`.
bool WaitFor(const std::function<bool()>& cond, absl::Duration timeout);

// A sluice-devbroker child and its bootstrap address.
struct DevBroker {
  std::unique_ptr<Process> process;
  std::string bootstrap;
  // `topics` as "name:partitions".
  static DevBroker Start(const std::vector<std::string>& topics, const std::string& dir);
};

// Produces sample records number [start, start+count) keyed "ORD-<i>".
void ProduceSamples(const std::string& bootstrap, const std::string& topic, int start, int count,
                    bool v2 = false);
// Produces raw values to one partition.
void ProduceRaw(const std::string& bootstrap, const std::string& topic, int partition,
                const std::vector<std::string>& values);
// Committed offset of `group` per partition (-1 when none), in partition order.
std::vector<int64_t> Committed(const std::string& bootstrap, const std::string& group,
                               const std::string& topic, int partitions);
// Sum of the non-negative committed offsets.
int64_t CommittedSum(const std::string& bootstrap, const std::string& group,
                     const std::string& topic, int partitions);

// Reads every record of `topic` (all partitions, from the beginning) until
// `want` records or `timeout`; returns "value|header=v;..." strings.
struct ConsumedRecord {
  std::string key, value;
  std::map<std::string, std::string> headers;
};
std::vector<ConsumedRecord> ReadAll(const std::string& bootstrap, const std::string& topic,
                                    int want, absl::Duration timeout);

// The variables of a sluice-sink reading `topic` with the log sink, the
// sample schema from `descriptor_url`, short session timeout (mock broker),
// earliest offset reset, no control port.
std::map<std::string, std::string> SinkEnv(const std::string& bootstrap, const std::string& topic,
                                           const std::string& group,
                                           const std::string& descriptor_url);

// file:// URL of the sample descriptor set in the runfiles.
std::string SampleDescriptorUrl();

// A free TCP port on 127.0.0.1 (bound then released).
int FreePort();

// Lines of `text` containing `needle`.
int CountLines(const std::string& text, const std::string& needle);

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_SINK_HARNESS_H_
