#include "sink/dlq/kafka_dlq_writer.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "librdkafka/rdkafka.h"
#include "sink/source/kafka_record.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {

struct KafkaDlqWriter::Impl {
  rd_kafka_t* rk = nullptr;
  std::string topic;
  absl::Duration flush_timeout;
  // Delivery outcome per message of the current Write.
  std::vector<rd_kafka_resp_err_t> results;
  // Produce id (the message opaque) -> index into `results`, for the
  // messages of the current Write whose report has not arrived yet. Ids
  // only grow, so a late report for a message of an earlier Write (its
  // flush timed out before librdkafka's message.timeout.ms) finds no entry
  // and is ignored; it can never mark a message of this Write as delivered.
  // Reports are served by rd_kafka_flush/poll on the calling thread only.
  absl::flat_hash_map<uint64_t, size_t> pending;
  uint64_t next_id = 1;

  static void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* self = static_cast<Impl*>(opaque);
    auto it = self->pending.find(reinterpret_cast<uintptr_t>(m->_private));
    if (it == self->pending.end()) return;  // an earlier Write's message
    self->results[it->second] = m->err;
    self->pending.erase(it);
  }
};

absl::StatusOr<std::unique_ptr<KafkaDlqWriter>> KafkaDlqWriter::Create(
    const std::string& brokers, const std::string& topic, const std::string& acks,
    const std::map<std::string, std::string>& properties, absl::Duration flush_timeout) {
  auto w = std::unique_ptr<KafkaDlqWriter>(new KafkaDlqWriter());
  w->impl_ = std::make_unique<Impl>();
  w->impl_->topic = topic;
  w->impl_->flush_timeout = flush_timeout;
  char err[512];
  auto conf_or = NewKafkaConf(
      {{"bootstrap.servers", brokers}, {"acks", acks}, {"log_level", "4"}}, "DLQ Kafka producer");
  if (!conf_or.ok()) return conf_or.status();
  rd_kafka_conf_t* conf = *conf_or;
  // Extra DLQ_KAFKA_<X> properties were translated from Java's names (and
  // Java-only ones accepted with a warning) by the configuration; what is
  // left must be librdkafka's.
  for (const auto& [k, v] : properties) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return absl::InvalidArgumentError(absl::StrCat("DLQ Kafka producer property ", k, ": ", err));
    }
  }
  rd_kafka_conf_set_opaque(conf, w->impl_.get());
  rd_kafka_conf_set_dr_msg_cb(conf, &Impl::OnDelivery);
  w->impl_->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  if (w->impl_->rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return absl::InvalidArgumentError(absl::StrCat("DLQ Kafka producer: ", err));
  }
  return w;
}

KafkaDlqWriter::~KafkaDlqWriter() {
  if (impl_ && impl_->rk) {
    rd_kafka_flush(impl_->rk, 5000);
    rd_kafka_destroy(impl_->rk);
  }
}

std::vector<FailedMessage> KafkaDlqWriter::Write(const std::vector<FailedMessage>& messages) {
  Impl& im = *impl_;
  im.results.assign(messages.size(), RD_KAFKA_RESP_ERR__IN_PROGRESS);
  im.pending.clear();  // reports still owed to earlier Writes are dropped
  for (size_t i = 0; i < messages.size(); ++i) {
    const FailedMessage& f = messages[i];
    const Message& m = f.message;
    rd_kafka_headers_t* hdrs = rd_kafka_headers_new(m.headers.size() + 5);
    for (const auto& [k, v] : m.headers) {
      rd_kafka_header_add(hdrs, k.data(), k.size(), v.data(), v.size());
    }
    std::string type(ErrorTypeName(f.error_type));
    std::string partition = absl::StrCat(m.partition), offset = absl::StrCat(m.offset);
    rd_kafka_header_add(hdrs, kDlqHeaderErrorType, -1, type.data(), type.size());
    rd_kafka_header_add(hdrs, kDlqHeaderErrorMessage, -1, f.error.data(), f.error.size());
    rd_kafka_header_add(hdrs, kDlqHeaderSourceTopic, -1, m.topic.data(), m.topic.size());
    rd_kafka_header_add(hdrs, kDlqHeaderSourcePartition, -1, partition.data(), partition.size());
    rd_kafka_header_add(hdrs, kDlqHeaderSourceOffset, -1, offset.data(), offset.size());
    const void* key = m.key ? static_cast<const void*>(m.key->data()) : nullptr;
    const size_t key_len = m.key ? m.key->size() : 0;
    const uint64_t id = im.next_id++;
    im.pending[id] = i;
    rd_kafka_resp_err_t e;
    do {
      e = rd_kafka_producev(
          im.rk, RD_KAFKA_V_TOPIC(im.topic.c_str()),
          RD_KAFKA_V_KEY(key, key_len),
          RD_KAFKA_V_VALUE(const_cast<char*>(m.value.data()), m.value.size()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_HEADERS(hdrs),
          RD_KAFKA_V_TIMESTAMP(m.timestamp_ms),
          RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(static_cast<uintptr_t>(id))),
          RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) rd_kafka_poll(im.rk, 10);
    } while (e == RD_KAFKA_RESP_ERR__QUEUE_FULL);
    if (e) {
      rd_kafka_headers_destroy(hdrs);  // not taken over on failure
      im.pending.erase(id);            // no report will come for it
      im.results[i] = e;
    }
  }
  rd_kafka_flush(im.rk, static_cast<int>(absl::ToInt64Milliseconds(im.flush_timeout)));
  std::vector<FailedMessage> failed;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (im.results[i] != RD_KAFKA_RESP_ERR_NO_ERROR) {
      FailedMessage f = messages[i];
      f.error = absl::StrCat("DLQ write failed: ", rd_kafka_err2str(im.results[i]), "; ", f.error);
      failed.push_back(std::move(f));
    }
  }
  return failed;
}

}  // namespace sluice::sink
