#include "sink/sample/topics.h"

#include <thread>

namespace sluice::sample {
namespace {

// One CreateTopics request for the topics not created yet; marks those the
// broker created or already had. "" when every one is created.
std::string RequestTopics(rd_kafka_t* rk, const std::vector<std::pair<std::string, int>>& topics,
                          std::vector<bool>* created) {
  std::vector<rd_kafka_NewTopic_t*> news;
  std::string failure;
  char err[256];
  for (size_t i = 0; i < topics.size(); ++i) {
    if ((*created)[i]) continue;
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topics[i].first.c_str(), topics[i].second, 1,
                                                    err, sizeof(err));
    if (nt == nullptr) return topics[i].first + ": " + err;
    news.push_back(nt);
  }
  if (news.empty()) return "";
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, news.data(), news.size(), nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 10000);
  const rd_kafka_CreateTopics_result_t* res = ev ? rd_kafka_event_CreateTopics_result(ev) : nullptr;
  if (res == nullptr) {
    failure = ev ? rd_kafka_event_error_string(ev) : "no answer from the broker within 10 s";
  } else {
    size_t n = 0;
    const rd_kafka_topic_result_t** results = rd_kafka_CreateTopics_result_topics(res, &n);
    for (size_t r = 0; r < n; ++r) {
      const std::string name = rd_kafka_topic_result_name(results[r]);
      const rd_kafka_resp_err_t e = rd_kafka_topic_result_error(results[r]);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR || e == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
        for (size_t i = 0; i < topics.size(); ++i) {
          if (topics[i].first == name) (*created)[i] = true;
        }
      } else {
        const char* why = rd_kafka_topic_result_error_string(results[r]);
        failure += name + ": " + (why ? why : rd_kafka_err2str(e)) + "; ";
      }
    }
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  for (auto* nt : news) rd_kafka_NewTopic_destroy(nt);
  return failure;
}

}  // namespace

int LedPartitions(rd_kafka_t* rk, const std::string& topic) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  int led = -1;
  if (rd_kafka_metadata(rk, 0, rkt, &md, 2000) == RD_KAFKA_RESP_ERR_NO_ERROR &&
      md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    led = 0;
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
      if (md->topics[0].partitions[i].leader >= 0) ++led;
    }
  }
  if (md) rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(rkt);
  return led;
}

std::string EnsureTopics(rd_kafka_t* rk, const std::vector<std::pair<std::string, int>>& topics,
                         std::chrono::milliseconds timeout, const std::atomic<bool>* stop) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<bool> created(topics.size(), false);
  std::string last = "no answer from the broker";
  while ((stop == nullptr || !stop->load()) && std::chrono::steady_clock::now() < deadline) {
    last = RequestTopics(rk, topics, &created);
    if (last.empty()) {
      bool ready = true;
      for (const auto& [name, partitions] : topics) {
        const int led = LedPartitions(rk, name);
        if (led <= 0 || led < partitions) {
          last = name + ": partitions without a leader yet";
          ready = false;
          break;
        }
      }
      if (ready) return "";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // retry pacing
  }
  return last;
}

}  // namespace sluice::sample
