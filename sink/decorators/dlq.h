// The dead-letter queue (Firehose's SinkWithDlq and DLQ writers). With
// DLQ_SINK_ENABLE=true, failures left after the retries go to a writer
// (DLQ_WRITER_TYPE: KAFKA or LOG); a message counts as handled (and is
// committed) only after its DLQ write succeeded.
#ifndef SLUICE_SINK_DECORATORS_DLQ_H_
#define SLUICE_SINK_DECORATORS_DLQ_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sink/decorators/retry.h"
#include "sink/message.h"
#include "sink/metrics.h"

namespace sluice::sink {

// Header names the KAFKA writer adds to each dead letter, next to the
// original headers.
inline constexpr char kDlqHeaderErrorType[] = "error_type";
inline constexpr char kDlqHeaderErrorMessage[] = "error_message";
inline constexpr char kDlqHeaderSourceTopic[] = "source_topic";
inline constexpr char kDlqHeaderSourcePartition[] = "source_partition";
inline constexpr char kDlqHeaderSourceOffset[] = "source_offset";

// Writes dead letters. Used by one worker thread.
class DlqWriter {
 public:
  virtual ~DlqWriter() = default;
  // Writes `messages`; returns those that could not be written.
  virtual std::vector<FailedMessage> Write(const std::vector<FailedMessage>& messages) = 0;
};

// DLQ_WRITER_TYPE=LOG: one warning line per message (topic, partition,
// offset, error type, error). Never fails.
class LogDlqWriter : public DlqWriter {
 public:
  std::vector<FailedMessage> Write(const std::vector<FailedMessage>& messages) override;
};

// DLQ_WRITER_TYPE=KAFKA: produces the original key, value and headers to
// DLQ_KAFKA_TOPIC on DLQ_KAFKA_BROKERS with acks DLQ_KAFKA_ACKS, plus the
// kDlqHeader* headers, and waits for the delivery reports. A message counts
// as written only on its own delivery report: each produce carries a unique
// id, so a report arriving after its Write gave up (flush timeout) is ignored
// by the next Write (review M6).
class KafkaDlqWriter : public DlqWriter {
 public:
  // `properties` are extra librdkafka producer properties (DLQ_KAFKA_<X>);
  // unknown ones are skipped with a warning. InvalidArgument on bad brokers/acks.
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

class DlqSink : public Sink {
 public:
  struct Options {
    // Which failures go to the DLQ (ERROR_TYPES_FOR_DLQ; when that is empty,
    // every type not in ERROR_TYPES_FOR_FAILING).
    std::function<bool(ErrorType)> to_dlq;
    int64_t max_attempts = INT32_MAX;     // DLQ_RETRY_MAX_ATTEMPTS
    bool fail_after_max_attempts = false;  // DLQ_RETRY_FAIL_AFTER_MAX_ATTEMPT_ENABLE
    Backoff backoff;
  };
  // `inner`, `writer` owned; `metrics` not. `sleep` defaults to
  // BackoffSleep with `stop` and `keep_alive` (both may be null), as in
  // RetryingSink.
  DlqSink(std::unique_ptr<Sink> inner, std::unique_ptr<DlqWriter> writer, Options options,
          Metrics* metrics, Sleeper sleep = nullptr, StopCheck stop = nullptr,
          KeepAlive keep_alive = nullptr);

  std::vector<FailedMessage> Push(const std::vector<Message>& batch) override;
  absl::string_view Name() const override { return inner_->Name(); }

  // Sends the DLQ-bound messages of `failed` to the writer and returns the
  // rest plus those the writer never took.
  std::vector<FailedMessage> Route(std::vector<FailedMessage> failed);

  // Not OK once a DLQ write failed for good with fail_after_max_attempts.
  absl::Status TakeFatal();

 private:
  std::unique_ptr<Sink> inner_;
  std::unique_ptr<DlqWriter> writer_;
  Options options_;
  Metrics* metrics_;
  Sleeper sleep_;
  StopCheck stop_;
  KeepAlive keep_alive_;
  absl::Status fatal_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_DLQ_H_
