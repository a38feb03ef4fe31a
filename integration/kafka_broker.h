// A real Apache Kafka broker (KRaft, one node) for sluice-sink's end-to-end
// tests and benchmarks: scripts/kafka-broker.sh run as a child process on free
// loopback ports, with a private data directory. The librdkafka mock cluster
// (DevBroker in sink_harness.h) stays for tests that inject broker errors.
#ifndef SLUICE_INTEGRATION_KAFKA_BROKER_H_
#define SLUICE_INTEGRATION_KAFKA_BROKER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "integration/process.h"

namespace sluice::integration {

// Users and secrets of the SASL listener (KafkaBroker::Options::sasl).
inline constexpr char kSaslPlainUser[] = "alice";
inline constexpr char kSaslPlainPassword[] = "alice-secret";
inline constexpr char kSaslScramUser[] = "bob";
inline constexpr char kSaslScramPassword[] = "bob-secret";

// The jars of Apache Kafka 3.9.1 (third_party/kafka/3.9/pom.xml), for the
// SCRAM test only: SLUICE_KAFKA_3_9_LIBS, else scripts/install-kafka.sh's cache.
std::string Kafka39Libs();

// One broker process. Movable; the destructor stops the broker (SIGTERM).
struct KafkaBroker {
  struct Options {
    // A SASL_PLAINTEXT listener (sasl_bootstrap) taking PLAIN for
    // kSaslPlainUser and SCRAM-SHA-512 for kSaslScramUser.
    bool sasl = false;
    // An SSL listener (ssl_bootstrap) whose certificate a fresh CA signed
    // (ca_pem: the CA's PEM file; the certificate names IP 127.0.0.1).
    bool tls = false;
    // The broker's jars; empty: SLUICE_KAFKA_LIBS, else the 4.1.1 cache of
    // scripts/install-kafka.sh. Kafka39Libs() runs Kafka 3.9.1 instead.
    std::string libs;
  };

  std::unique_ptr<Process> process;
  std::string dir;             // private directory: data, server.properties, logs
  std::string bootstrap;       // PLAINTEXT "127.0.0.1:port"
  std::string sasl_bootstrap;  // SASL_PLAINTEXT, when Options::sasl
  std::string ssl_bootstrap;   // SSL, when Options::tls
  std::string ca_pem;          // the CA of the SSL listener, when Options::tls
  std::string version;         // e.g. "4.1.1", from the broker's start line
  absl::Duration start_time;   // from exec to the first metadata answer
  long rss_kib = 0;            // the broker's VmRSS once it answered

  // Starts a broker in `dir` (created) and creates `topics` ("name:partitions")
  // with replication factor 1, waiting until each partition has a leader.
  // Prints the version, start time and RSS on stdout. Aborts the test binary
  // when the broker exits or does not answer within 120 s (its output is
  // printed).
  static KafkaBroker Start(const std::vector<std::string>& topics, const std::string& dir,
                           Options options);
  static KafkaBroker Start(const std::vector<std::string>& topics, const std::string& dir) {
    return Start(topics, dir, Options{});
  }

  // SIGKILL, as a crashed broker.
  void Kill();
  // Starts the broker again on the same directory and ports (topics, records
  // and committed offsets kept) and waits until it answers.
  void Restart();
  // Creates more topics ("name:partitions"); FailedPrecondition naming the
  // broker's answer when one cannot be created.
  absl::Status CreateTopics(const std::vector<std::string>& topics);

 private:
  int port_ = 0, controller_port_ = 0;
  std::string libs_;  // Options::libs
  // Picks free ports and writes extra.properties (SASL and SSL listeners).
  void Configure(const Options& options);
  // Starts the script and waits until the broker answers; false when it
  // exited first and `retry_if_exited` (otherwise the test aborts).
  bool Launch(bool retry_if_exited);
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_KAFKA_BROKER_H_
