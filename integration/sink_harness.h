// Helpers for sluice-sink's end-to-end tests: spawn the real binaries
// (sluice-sink, and sluice-devbroker for tests on librdkafka's mock cluster)
// as child processes, produce records, and read committed offsets with
// librdkafka. They work against either broker: the real Apache Kafka of
// kafka_broker.h or DevBroker here.
#ifndef SLUICE_INTEGRATION_SINK_HARNESS_H_
#define SLUICE_INTEGRATION_SINK_HARNESS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "integration/process.h"

namespace sluice::integration {

// Starts `argv` (a runfiles-relative path) with exactly `env` (plus PATH,
// HOME, TMPDIR, TEST_TMPDIR), stdout in `path_prefix`.out and stderr in
// `path_prefix`.err. Aborts the test binary when fork fails.
std::unique_ptr<Process> StartChild(std::vector<std::string> argv,
                                    std::map<std::string, std::string> env,
                                    const std::string& path_prefix);

// StartChild of sink/sluice-sink.
std::unique_ptr<Process> StartSink(std::map<std::string, std::string> env,
                                   const std::string& path_prefix);

// A sluice-devbroker child (librdkafka's mock cluster) and its bootstrap
// address. For tests that need what only the mock does (injected broker
// errors) or that test the sink rather than Kafka; the group, fault, DLQ and
// security tests use KafkaBroker (kafka_broker.h).
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
// sample schema from `descriptor_url`, a 6 s session timeout (a coordinator,
// real or mock, keeps a killed member's partitions until its session lapses;
// Firehose's default is 10 s), earliest offset reset, LONG_POLLING schema
// fetches, no control port.
std::map<std::string, std::string> SinkEnv(const std::string& bootstrap, const std::string& topic,
                                           const std::string& group,
                                           const std::string& descriptor_url);

// SinkEnv for a JSON topic: INPUT_SCHEMA_DATA_TYPE=json, no proto class and
// no schema registry.
std::map<std::string, std::string> JsonSinkEnv(const std::string& bootstrap,
                                               const std::string& topic, const std::string& group);

// file:// URL of the sample descriptor set in the runfiles.
std::string SampleDescriptorUrl();

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_SINK_HARNESS_H_
