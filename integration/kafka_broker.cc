#include "integration/kafka_broker.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "integration/sink_harness.h"
#include "librdkafka/rdkafka.h"
#include "sink/sample/topics.h"

namespace sluice::integration {
namespace {

[[noreturn]] void Fail(KafkaBroker& b, const std::string& why) {
  // The script's own errors (no jars, no java) are on stderr, the JVM's log
  // on stdout.
  std::fprintf(stderr, "kafka broker in %s: %s\n--- broker stderr ---\n%s\n--- broker stdout ---\n%s\n",
               b.dir.c_str(), why.c_str(), b.process ? b.process->Stderr().c_str() : "",
               b.process ? b.process->Output().c_str() : "");
  // abort() runs no destructor: a JVM still starting would outlive the test.
  if (b.process) b.process->Kill9();
  std::abort();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

// A CA and a server certificate for 127.0.0.1 signed by it, with openssl; the
// server's key and chain in one PEM file (Kafka's ssl.keystore.type=PEM).
void MakeCertificates(KafkaBroker& b) {
  const std::string d = b.dir + "/tls";
  std::string cmd = absl::StrCat(
      "set -e; mkdir -p ", d, "; cd ", d,
      "; openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=sluice-test-ca"
      " -keyout ca.key -out ca.pem 2>/dev/null"
      "; openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key"
      " -out server.csr 2>/dev/null"
      "; printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > san.ext"
      "; openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2"
      " -extfile san.ext -out server.pem 2>/dev/null"
      "; openssl pkcs8 -topk8 -nocrypt -in server.key -out server.p8"
      "; cat server.p8 server.pem ca.pem > keystore.pem");
  if (std::system(cmd.c_str()) != 0) Fail(b, "openssl could not make the test certificates");
}

rd_kafka_t* AdminClient(const std::string& bootstrap) {
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "log_level", "0", err, sizeof(err));
  return rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
}

}  // namespace

std::string Kafka39Libs() {
  const char* env = std::getenv("SLUICE_KAFKA_3_9_LIBS");
  return env != nullptr ? env : "/var/cache/sluice/kafka/libs-3.9";
}

bool KafkaBroker::Launch(bool retry_if_exited) {
  std::map<std::string, std::string> env;
  if (!libs_.empty()) {
    env["SLUICE_KAFKA_LIBS"] = libs_;
  } else if (const char* libs = std::getenv("SLUICE_KAFKA_LIBS")) {
    env["SLUICE_KAFKA_LIBS"] = libs;
  }
  absl::Time t0 = absl::Now();
  process = StartChild({"scripts/kafka-broker.sh", dir, absl::StrCat(port_),
                        absl::StrCat(controller_port_)},
                       env, dir + "/broker");
  rd_kafka_t* rk = AdminClient(bootstrap);
  bool up = WaitFor(
      [&] {
        if (!process->Running()) return true;
        const rd_kafka_metadata_t* md = nullptr;
        bool ok = rd_kafka_metadata(rk, 0, nullptr, &md, 1000) == RD_KAFKA_RESP_ERR_NO_ERROR &&
                  md->broker_cnt > 0;
        if (md) rd_kafka_metadata_destroy(md);
        return ok;
      },
      // 44 s were seen with four tests sharing two busy cores.
      absl::Seconds(120));
  rd_kafka_destroy(rk);
  if (!process->Running()) {
    if (retry_if_exited) return false;
    Fail(*this, "exited before it answered");
  }
  if (!up) Fail(*this, "did not answer within 120 s");
  start_time = absl::Now() - t0;
  rss_kib = StatusKb(process->pid(), "VmRSS");
  std::string err = process->Stderr();
  const std::string tag = "Apache Kafka ";
  if (size_t at = err.find(tag); at != std::string::npos) {
    version = err.substr(at + tag.size(), err.find(' ', at + tag.size()) - at - tag.size());
  }
  std::printf("kafka broker: Apache Kafka %s (KRaft) at %s, up in %lld ms, RSS %ld MiB\n",
              version.c_str(), bootstrap.c_str(),
              static_cast<long long>(absl::ToInt64Milliseconds(start_time)), rss_kib / 1024);
  std::fflush(stdout);
  return true;
}

void KafkaBroker::Configure(const Options& options) {
  port_ = FreePort();
  controller_port_ = FreePort();
  bootstrap = absl::StrCat("127.0.0.1:", port_);
  std::string listeners, advertised, extra;
  auto add_listener = [&](const std::string& name) {
    std::string at = absl::StrCat(name, "://127.0.0.1:", FreePort());
    absl::StrAppend(&listeners, ",", at);
    absl::StrAppend(&advertised, ",", at);
    return at.substr(name.size() + 3);
  };
  if (options.sasl) {
    sasl_bootstrap = add_listener("SASL_PLAINTEXT");
    absl::StrAppend(
        &extra, "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512\n",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config="
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"",
        kSaslPlainUser, "\" password=\"", kSaslPlainPassword, "\" user_", kSaslPlainUser, "=\"",
        kSaslPlainPassword, "\";\n",
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config="
        "org.apache.kafka.common.security.scram.ScramLoginModule required;\n");
  }
  if (options.tls) {
    ssl_bootstrap = add_listener("SSL");
    absl::StrAppend(&extra, "listener.name.ssl.ssl.keystore.type=PEM\n",
                    "listener.name.ssl.ssl.keystore.location=", dir, "/tls/keystore.pem\n");
  }
  if (!listeners.empty()) {
    absl::StrAppend(&extra, "listeners=PLAINTEXT://", bootstrap, ",CONTROLLER://127.0.0.1:",
                    controller_port_, listeners, "\n", "advertised.listeners=PLAINTEXT://",
                    bootstrap, advertised, "\n");
  }
  std::filesystem::remove(dir + "/extra.properties");
  if (!listeners.empty()) WriteFile(dir + "/extra.properties", extra);
}

KafkaBroker KafkaBroker::Start(const std::vector<std::string>& topics, const std::string& dir,
                               Options options) {
  KafkaBroker b;
  b.dir = dir;
  b.libs_ = options.libs;
  // Before anything writes in it: the child's stdout and stderr files
  // (StartChild) and extra.properties live there.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) Fail(b, "cannot create the directory: " + ec.message());
  if (options.sasl) {
    WriteFile(dir + "/scram-users", absl::StrCat("SCRAM-SHA-512=[name=", kSaslScramUser,
                                                 ",password=", kSaslScramPassword, "]\n"));
  }
  if (options.tls) {
    MakeCertificates(b);
    b.ca_pem = dir + "/tls/ca.pem";
  }
  // The ports were free when picked, but the JVM binds them seconds later: a
  // broker that exits before it answers (a port taken meanwhile) is started
  // again on new ports with a fresh data directory, twice at most.
  for (int attempt = 1;; ++attempt) {
    b.Configure(options);
    if (b.Launch(/*retry_if_exited=*/attempt < 3)) break;
    std::printf("kafka broker exited before it answered (attempt %d); again on new ports:\n%s\n",
                attempt, b.process->Stderr().c_str());
    std::filesystem::remove_all(dir + "/data", ec);
  }
  if (absl::Status s = b.CreateTopics(topics); !s.ok()) Fail(b, std::string(s.message()));
  return b;
}

absl::Status KafkaBroker::CreateTopics(const std::vector<std::string>& topics) {
  if (topics.empty()) return absl::OkStatus();
  std::vector<std::pair<std::string, int>> want;
  for (const std::string& t : topics) {
    std::pair<std::string, std::string> nv = absl::StrSplit(t, absl::MaxSplits(':', 1));
    int partitions = 1;
    if (!nv.second.empty() && !absl::SimpleAtoi(nv.second, &partitions)) partitions = 1;
    want.emplace_back(nv.first, partitions);
  }
  rd_kafka_t* rk = AdminClient(bootstrap);
  const std::string why = sample::EnsureTopics(rk, want, std::chrono::seconds(60), nullptr);
  rd_kafka_destroy(rk);
  if (!why.empty()) return absl::FailedPreconditionError("create topics: " + why);
  return absl::OkStatus();
}

void KafkaBroker::Kill() {
  if (process) process->Kill9();
}

void KafkaBroker::Restart() {
  if (process && process->Running()) process->Stop();
  Launch(/*retry_if_exited=*/false);
}

}  // namespace sluice::integration
