#include "integration/sink_harness.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "librdkafka/rdkafka.h"
#include "sink/sample/sample_gen.h"

namespace sluice::integration {

std::unique_ptr<Process> StartChild(std::vector<std::string> argv,
                                    std::map<std::string, std::string> env,
                                    const std::string& path_prefix) {
  Process::Options o;
  o.env = std::move(env);
  o.clean_env = true;
  o.stdout_path = path_prefix + ".out";
  o.stderr_path = path_prefix + ".err";
  auto p = Process::Start(std::move(argv), std::move(o));
  if (!p.ok()) {
    std::fprintf(stderr, "cannot start a child process: %s\n", std::string(p.status().message()).c_str());
    std::abort();
  }
  return std::move(*p);
}

std::unique_ptr<Process> StartSink(std::map<std::string, std::string> env,
                                   const std::string& path_prefix) {
  return StartChild({"sink/sluice-sink"}, std::move(env), path_prefix);
}

DevBroker DevBroker::Start(const std::vector<std::string>& topics, const std::string& dir) {
  std::vector<std::string> argv = {"sink/devbroker/sluice-devbroker"};
  for (const auto& t : topics) {
    argv.push_back("--topic");
    argv.push_back(t);
  }
  DevBroker b;
  b.process = StartChild(argv, {}, dir + "/broker");
  // Under a loaded machine (make test runs several tests at once) the mock
  // cluster can take more than a few seconds to print its address; without
  // one every later step fails for a misleading reason, so stop here.
  if (!WaitFor([&] { return b.process->Output().find('\n') != std::string::npos; },
               absl::Seconds(60))) {
    std::fprintf(stderr, "devbroker printed no bootstrap address in 60 s; its output: %s\n",
                 b.process->Output().c_str());
    std::exit(1);
  }
  std::string out = b.process->Output();
  b.bootstrap = out.substr(0, out.find('\n'));
  return b;
}

static rd_kafka_t* Producer(const std::string& bootstrap) {
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "linger.ms", "5", err, sizeof(err));
  return rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
}

void ProduceSamples(const std::string& bootstrap, const std::string& topic, int start, int count,
                    bool v2) {
  rd_kafka_t* p = Producer(bootstrap);
  int64_t now = absl::ToUnixMillis(absl::Now());
  for (int i = start; i < start + count; ++i) {
    std::string v = sample::SampleBytes(i, now, v2);
    std::string k = absl::StrCat("ORD-", i);
    while (rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_KEY(k.data(), k.size()),
                             RD_KAFKA_V_VALUE(v.data(), v.size()),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                             RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(p, 10);
    }
  }
  rd_kafka_flush(p, 30000);
  rd_kafka_destroy(p);
}

void ProduceRaw(const std::string& bootstrap, const std::string& topic, int partition,
                const std::vector<std::string>& values) {
  rd_kafka_t* p = Producer(bootstrap);
  for (const std::string& v : values) {
    rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                      RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()),
                      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    rd_kafka_flush(p, 10000);  // keep the order across calls
  }
  rd_kafka_destroy(p);
}

std::vector<int64_t> Committed(const std::string& bootstrap, const std::string& group,
                               const std::string& topic, int partitions) {
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof(err));
  rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  auto* list = rd_kafka_topic_partition_list_new(partitions);
  for (int i = 0; i < partitions; ++i) rd_kafka_topic_partition_list_add(list, topic.c_str(), i);
  rd_kafka_committed(c, list, 10000);
  std::vector<int64_t> out;
  for (int i = 0; i < partitions; ++i) out.push_back(list->elems[i].offset < 0 ? -1 : list->elems[i].offset);
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_destroy(c);
  return out;
}

int64_t CommittedSum(const std::string& bootstrap, const std::string& group,
                     const std::string& topic, int partitions) {
  int64_t sum = 0;
  for (int64_t o : Committed(bootstrap, group, topic, partitions)) sum += o > 0 ? o : 0;
  return sum;
}

std::vector<ConsumedRecord> ReadAll(const std::string& bootstrap, const std::string& topic,
                                    int want, absl::Duration timeout) {
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "group.id", "sluice-test-reader", err, sizeof(err));
  rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(c, topic.c_str(), nullptr);
  std::vector<ConsumedRecord> out;
  if (rd_kafka_metadata(c, 0, rkt, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1) {
    auto* list = rd_kafka_topic_partition_list_new(md->topics[0].partition_cnt);
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
      rd_kafka_topic_partition_list_add(list, topic.c_str(), md->topics[0].partitions[i].id)->offset =
          RD_KAFKA_OFFSET_BEGINNING;
    }
    rd_kafka_assign(c, list);
    rd_kafka_topic_partition_list_destroy(list);
    absl::Time deadline = absl::Now() + timeout;
    while (static_cast<int>(out.size()) < want && absl::Now() < deadline) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(c, 100);
      if (m == nullptr) continue;
      if (!m->err) {
        ConsumedRecord r;
        if (m->key) r.key.assign(static_cast<char*>(m->key), m->key_len);
        if (m->payload) r.value.assign(static_cast<char*>(m->payload), m->len);
        rd_kafka_headers_t* h = nullptr;
        if (rd_kafka_message_headers(m, &h) == RD_KAFKA_RESP_ERR_NO_ERROR) {
          const char* name;
          const void* v;
          size_t n;
          for (size_t i = 0; rd_kafka_header_get_all(h, i, &name, &v, &n) == 0; ++i) {
            r.headers[name] = v ? std::string(static_cast<const char*>(v), n) : "";
          }
        }
        out.push_back(std::move(r));
      }
      rd_kafka_message_destroy(m);
    }
  }
  rd_kafka_topic_destroy(rkt);
  if (md) rd_kafka_metadata_destroy(md);
  rd_kafka_destroy(c);
  return out;
}

std::string SampleDescriptorUrl() {
  char cwd[4096];
  getcwd(cwd, sizeof(cwd));
  return absl::StrCat("file://", cwd, "/sink/sample/sample_cc.desc");
}

std::map<std::string, std::string> SinkEnv(const std::string& bootstrap, const std::string& topic,
                                           const std::string& group,
                                           const std::string& descriptor_url) {
  return {
      {"SINK_TYPE", "log"},
      {"SOURCE_KAFKA_BROKERS", bootstrap},
      {"SOURCE_KAFKA_TOPIC", topic},
      {"SOURCE_KAFKA_CONSUMER_GROUP_ID", group},
      {"SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET", "earliest"},
      // Coordinators (Kafka's and the mock's) complete a rebalance once the
      // sessions of departed members lapse; keep it short for the tests.
      {"SOURCE_KAFKA_CONSUMER_CONFIG_SESSION_TIMEOUT_MS", "6000"},
      {"SOURCE_KAFKA_CONSUMER_CONFIG_HEARTBEAT_INTERVAL_MS", "500"},
      {"INPUT_SCHEMA_PROTO_CLASS", "io.sluice.sample.SampleProto$SampleLogMessage"},
      {"SCHEMA_REGISTRY_STENCIL_URLS", descriptor_url},
      // The tests serve plain descriptor sets (no Stencil /versions listing).
      {"SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY", "LONG_POLLING"},
      {"SINK_CONTROL_PORT", "0"},
      {"METRIC_STATSD_HOST", "127.0.0.1"},
      {"METRIC_STATSD_PORT", "9"},
  };
}

std::map<std::string, std::string> JsonSinkEnv(const std::string& bootstrap,
                                               const std::string& topic, const std::string& group) {
  auto env = SinkEnv(bootstrap, topic, group, "");
  env.erase("INPUT_SCHEMA_PROTO_CLASS");
  env.erase("SCHEMA_REGISTRY_STENCIL_URLS");
  env["INPUT_SCHEMA_DATA_TYPE"] = "json";
  return env;
}

}  // namespace sluice::integration
