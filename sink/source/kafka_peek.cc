#include "sink/source/kafka_peek.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "librdkafka/rdkafka.h"
#include "sink/source/kafka_consumer.h"
#include "sink/source/kafka_record.h"

namespace sluice::sink {

absl::StatusOr<std::vector<Message>> PeekRecords(const SourceConfig& config, int n,
                                                 absl::Duration timeout) {
  if (absl::StartsWith(config.topic, "^") || absl::StartsWith(config.subscription, "^")) {
    return absl::InvalidArgumentError("next_records needs a plain topic, not a regex subscription");
  }
  char err[512];
  auto conf_or = NewKafkaConf(ConsumerProperties(config, /*worker=*/-1), "Kafka peek");
  if (!conf_or.ok()) return conf_or.status();
  rd_kafka_conf_t* conf = *conf_or;
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return absl::InternalError(err);
  }
  std::vector<Message> out;
  absl::Status status;
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, config.topic.c_str(), nullptr);
  rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 5000);
  rd_kafka_topic_destroy(rkt);
  if (e || md->topic_cnt != 1 || md->topics[0].err) {
    // topics[0] exists only when topic_cnt > 0.
    rd_kafka_resp_err_t why = e                    ? e
                              : md->topic_cnt >= 1 ? md->topics[0].err
                                                   : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
    status = absl::UnavailableError(
        absl::StrCat("metadata for ", config.topic, ": ", rd_kafka_err2str(why)));
  } else {
    auto* list = rd_kafka_topic_partition_list_new(md->topics[0].partition_cnt);
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
      rd_kafka_topic_partition_list_add(list, config.topic.c_str(), md->topics[0].partitions[i].id);
    }
    rd_kafka_committed(rk, list, 5000);
    for (int i = 0; i < list->cnt; ++i) {
      if (list->elems[i].offset < 0) {
        list->elems[i].offset = config.auto_offset_reset == "earliest" ? RD_KAFKA_OFFSET_BEGINNING
                                                                        : RD_KAFKA_OFFSET_END;
      }
    }
    rd_kafka_assign(rk, list);
    rd_kafka_topic_partition_list_destroy(list);
    absl::Time deadline = absl::Now() + timeout;
    while (static_cast<int>(out.size()) < n && absl::Now() < deadline) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
      if (m == nullptr) continue;
      if (!m->err) {
        // The same conversion as the group consumer: headers and timestamps
        // included, so that a filter reading them sees what the worker sees.
        ToMessage(m, config.topic, absl::ToUnixMillis(absl::Now()), &out.emplace_back());
      }
      rd_kafka_message_destroy(m);
    }
    rd_kafka_assign(rk, nullptr);
  }
  if (md) rd_kafka_metadata_destroy(md);
  rd_kafka_destroy(rk);
  if (!status.ok()) return status;
  return out;
}

}  // namespace sluice::sink
