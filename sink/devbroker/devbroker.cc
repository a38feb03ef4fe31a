// sluice-devbroker: a development Kafka broker on librdkafka's mock cluster
// (<librdkafka/rdkafka_mock.h>), which speaks the real protocol (produce,
// fetch, consumer groups, committed offsets). Tests and `make run` use it;
// real deployments use Kafka.
//
// Usage: sluice-devbroker [--brokers N] [--topic name:partitions]...
// Prints the bootstrap address ("127.0.0.1:PORT[,...]") as the first stdout
// line, then runs until SIGTERM or SIGINT.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "librdkafka/rdkafka.h"
#include "librdkafka/rdkafka_mock.h"

namespace {

void Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--brokers N] [--topic name:partitions]...\n"
               "Runs a mock Kafka cluster; prints the bootstrap address first.\n",
               argv0);
}

bool ParseInt(const std::string& s, int* out) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v <= 0 || v > 100000) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int brokers = 1;
  std::vector<std::pair<std::string, int>> topics;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    auto take = [&](const std::string& flag) -> bool {
      if (arg == flag && i + 1 < argc) {
        value = argv[++i];
        return true;
      }
      if (arg.rfind(flag + "=", 0) == 0) {
        value = arg.substr(flag.size() + 1);
        return true;
      }
      return false;
    };
    if (take("--brokers")) {
      if (!ParseInt(value, &brokers)) {
        std::fprintf(stderr, "--brokers: expected a positive integer, got \"%s\"\n",
                     value.c_str());
        return 2;
      }
    } else if (take("--topic")) {
      auto colon = value.rfind(':');
      int partitions = 1;
      std::string name = value;
      if (colon != std::string::npos) {
        name = value.substr(0, colon);
        if (!ParseInt(value.substr(colon + 1), &partitions)) {
          std::fprintf(stderr, "--topic: expected name:partitions, got \"%s\"\n",
                       value.c_str());
          return 2;
        }
      }
      if (name.empty()) {
        std::fprintf(stderr, "--topic: empty topic name\n");
        return 2;
      }
      topics.emplace_back(name, partitions);
    } else if (arg == "--help" || arg == "-h") {
      Usage(argv[0]);
      return 0;
    } else {
      std::fprintf(stderr, "unknown argument \"%s\"\n", arg.c_str());
      Usage(argv[0]);
      return 2;
    }
  }

  // Block the stop signals before librdkafka starts its threads so that they
  // inherit the mask and sigwait() below is the only receiver.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  // The mock cluster needs a handle to own its threads; a producer that never
  // produces is the lightest one.
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
  if (rk == nullptr) {
    std::fprintf(stderr, "rd_kafka_new: %s\n", errstr);
    return 1;
  }
  rd_kafka_mock_cluster_t* mcluster = rd_kafka_mock_cluster_new(rk, brokers);
  if (mcluster == nullptr) {
    std::fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
    rd_kafka_destroy(rk);
    return 1;
  }
  for (const auto& [name, partitions] : topics) {
    rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(
        mcluster, name.c_str(), partitions, brokers < 3 ? brokers : 3);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::fprintf(stderr, "creating topic %s: %s\n", name.c_str(), rd_kafka_err2str(err));
      rd_kafka_mock_cluster_destroy(mcluster);
      rd_kafka_destroy(rk);
      return 1;
    }
  }
  std::printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
  std::fflush(stdout);
  std::fprintf(stderr, "sluice-devbroker: %d broker(s), %zu topic(s); SIGTERM stops\n", brokers,
               topics.size());

  int sig = 0;
  sigwait(&stop, &sig);
  rd_kafka_mock_cluster_destroy(mcluster);
  rd_kafka_destroy(rk);
  return 0;
}
