// The dead-letter queue (Firehose's SinkWithDlq and DLQ writers). With
// DLQ_SINK_ENABLE=true, failures left after the retries go to a writer
// (DLQ_WRITER_TYPE: KAFKA or LOG); a message counts as handled (and is
// committed) only after its DLQ write succeeded.
#ifndef SLUICE_SINK_DECORATORS_DLQ_H_
#define SLUICE_SINK_DECORATORS_DLQ_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sink/decorators/retry_loop.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/stages.h"

namespace sluice::sink {

// Header names the KAFKA writer adds to each dead letter, next to the
// original headers.
inline constexpr char kDlqHeaderErrorType[] = "error_type";
inline constexpr char kDlqHeaderErrorMessage[] = "error_message";
inline constexpr char kDlqHeaderSourceTopic[] = "source_topic";
inline constexpr char kDlqHeaderSourcePartition[] = "source_partition";
inline constexpr char kDlqHeaderSourceOffset[] = "source_offset";

// Writes dead letters. Used by one worker thread. The writers (LOG, KAFKA,
// BLOB_STORAGE) live in sink/dlq/, as Firehose's sink/dlq/ package.
class DlqWriter {
 public:
  virtual ~DlqWriter() = default;
  // Writes `messages`; returns those that could not be written.
  virtual std::vector<FailedMessage> Write(const std::vector<FailedMessage>& messages) = 0;
};

// The dead-letter layer: failures left below it (after the retries, plus
// decode and filter failures, which enter the chain at its top) whose type
// is DLQ-bound go to the writer, retried through the shared RetryLoop
// (firehose_dlq_retry_attempts_total).
class DlqLayer : public Dispatcher {
 public:
  struct Options {
    // Which failures go to the DLQ (ERROR_TYPES_FOR_DLQ; empty: none, as
    // Firehose).
    std::function<bool(ErrorType)> to_dlq;
    int64_t max_attempts = INT32_MAX;     // DLQ_RETRY_MAX_ATTEMPTS
    bool fail_after_max_attempts = false;  // DLQ_RETRY_FAIL_AFTER_MAX_ATTEMPT_ENABLE
    Backoff backoff;
  };
  // `inner`, `writer` owned; `metrics` not.
  DlqLayer(std::unique_ptr<Dispatcher> inner, std::unique_ptr<DlqWriter> writer, Options options,
           Metrics* metrics, RetryHooks hooks);

  // Dispatches to `inner`, then writes the DLQ-bound failures. A message the
  // writer took counts as handled (it leaves `failed`). When `inner` is
  // already fatal nothing is routed. Fatal (Unavailable, naming
  // topic/partition/offset) when a write failed for good with
  // fail_after_max_attempts.
  DispatchResult Dispatch(const std::vector<Message>& batch,
                          std::vector<FailedMessage> prefailed) override;

 private:
  std::unique_ptr<Dispatcher> inner_;
  std::unique_ptr<DlqWriter> writer_;
  Options options_;
  Metrics* metrics_;
  RetryLoop loop_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_DLQ_H_
