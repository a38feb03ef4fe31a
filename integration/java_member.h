// A Java KafkaConsumer group member (integration/java/KafkaConsumerMember.java,
// on kafka-clients from scripts/install-kafka.sh's cache): the client a
// Firehose pod runs on, for the rolling-swap test and the real-broker
// benchmark. The source is compiled with javac into a temporary directory the
// first time a member is started in a process.
#ifndef SLUICE_INTEGRATION_JAVA_MEMBER_H_
#define SLUICE_INTEGRATION_JAVA_MEMBER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "integration/process.h"

namespace sluice::integration {

// The Kafka jars: $SLUICE_KAFKA_LIBS, else /var/cache/sluice/kafka/libs (as
// scripts/kafka-broker.sh).
std::string KafkaLibs();

// The directory of the compiled KafkaConsumerMember classes; compiles them
// (once per process, ~4 s) from the runfile
// integration/java/KafkaConsumerMember.java. FailedPrecondition with javac's
// output when javac or the jars are missing or the compile fails.
absl::StatusOr<std::string> CompiledJavaMember();

// What a member is started with.
struct JavaMemberOptions {
  std::string bootstrap;  // "host:port"
  std::string topic;
  std::string group;
  // "partition offset key" lines of every record consumed, each poll batch
  // flushed before its commit ("" = none).
  std::string output_path;
  // > 0: benchmark mode: once this many records are consumed and committed,
  // print a "bench: ..." line and wait for SIGTERM to leave the group.
  int64_t max_records = 0;
  // commitAsync per batch (Firehose's SOURCE_KAFKA_ASYNC_COMMIT_ENABLE, and
  // how sluice-sink commits) instead of commitSync; the last is synchronous.
  bool async_commit = false;
  // Consumer properties over the member's Firehose-like defaults
  // (session.timeout.ms=10000, max.poll.records=500, earliest, no auto commit,
  // CooperativeStickyAssignor).
  std::map<std::string, std::string> consumer_properties;
  // JVM flags before the class name (e.g. {"-Xmx256m"}).
  std::vector<std::string> jvm_flags;
};

// Starts `java ... KafkaConsumerMember` with stdout in `path_prefix`.out and
// stderr in `path_prefix`.err. SIGTERM makes it leave the group and exit 0.
// Errors of CompiledJavaMember, or when java is not found.
absl::StatusOr<std::unique_ptr<Process>> StartJavaMember(const JavaMemberOptions& options,
                                                         const std::string& path_prefix);

// Partitions the member holds per its last "member: ... holding N [...]"
// stdout line (-1 before its first assignment).
int JavaMemberHolding(const std::string& stdout_text);

// One line of the member's output file.
struct JavaConsumed {
  int partition = 0;
  int64_t offset = 0;
  std::string key;
};
// The complete lines of the output file at `path` (a torn last line is
// skipped).
std::vector<JavaConsumed> ReadJavaMemberOutput(const std::string& path);

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_JAVA_MEMBER_H_
