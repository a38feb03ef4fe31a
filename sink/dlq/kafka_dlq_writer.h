// The Kafka dead-letter writer (DLQ_WRITER_TYPE=KAFKA), as Firehose's
// sink/dlq/kafka/KafkaDlqWriter.
#ifndef SLUICE_SINK_DLQ_KAFKA_DLQ_WRITER_H_
#define SLUICE_SINK_DLQ_KAFKA_DLQ_WRITER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sink/decorators/dlq.h"

namespace sluice::sink {

// DLQ_WRITER_TYPE=KAFKA: produces the original key, value and headers to
// DLQ_KAFKA_TOPIC on DLQ_KAFKA_BROKERS with acks DLQ_KAFKA_ACKS, plus the
// kDlqHeader* headers, and waits for the delivery reports. A message counts
// as written only on its own delivery report: each produce carries a unique
// id, so a report arriving after its Write gave up (flush timeout) is ignored
// by the next Write (review M6).
class KafkaDlqWriter : public DlqWriter {
 public:
  // `properties` are extra librdkafka producer properties (DLQ_KAFKA_<X>,
  // already translated from Java's names and checked by
  // TranslateKafkaProperties); InvalidArgument names one librdkafka still
  // rejects, and bad brokers/acks.
  // `flush_timeout`: how long one Write waits for its delivery reports;
  // messages without a report by then are returned as not written.
  static absl::StatusOr<std::unique_ptr<KafkaDlqWriter>> Create(
      const std::string& brokers, const std::string& topic, const std::string& acks,
      const std::map<std::string, std::string>& properties,
      absl::Duration flush_timeout = absl::Seconds(30));
  ~KafkaDlqWriter() override;
  std::vector<FailedMessage> Write(const std::vector<FailedMessage>& messages) override;

 private:
  KafkaDlqWriter() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DLQ_KAFKA_DLQ_WRITER_H_
