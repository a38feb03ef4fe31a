// The stages of one worker cycle between poll and commit (issue 7, "Source
// and worker loop"): decode, filter, then dispatch to the sink through the
// retry/DLQ decorators. Each stage is an interface so that the worker loop can
// be tested with fakes; implementations live in schema/, filter/ and
// decorators/.
#ifndef SLUICE_SINK_STAGES_H_
#define SLUICE_SINK_STAGES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sink/message.h"

namespace sluice::sink {

// Sets Message::decoded. Records that do not decode are moved from `batch`
// to `failed` with DESERIALIZATION_ERROR; the order of `batch` is kept.
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void Decode(std::vector<Message>* batch, std::vector<FailedMessage>* failed) = 0;
};

// Drops records the filter rejects from `batch` and returns how many were
// dropped. Evaluation errors move the record to `failed` with
// INVALID_MESSAGE_ERROR. Never crashes on bad input.
class Filter {
 public:
  virtual ~Filter() = default;
  virtual int Apply(std::vector<Message>* batch, std::vector<FailedMessage>* failed) = 0;
  // Of the records the last Apply dropped, those dropped because they did not
  // decode (FILTER_DROP_DESERIALIZATION_ERROR=true), and the counter Firehose
  // gives them (e.g. firehose_jexl_filter_deserialization_errors_total).
  virtual int DeserializationDrops() const { return 0; }
  virtual std::string DeserializationDropMetric() const { return ""; }
};

// What the sink chain made of a batch.
struct DispatchResult {
  // Messages that remain failed (never committed): those of a fatal
  // outcome, and those left when a stop was requested during the retries.
  std::vector<FailedMessage> failed;
  // Messages dropped by the final layer (Firehose's SinkFinal): still failed
  // after the chain, but neither retried further, dead-lettered nor failing.
  // Logged and counted there; committed like delivered ones.
  std::vector<FailedMessage> ignored;
  // Not OK when the worker must stop: a message of an ERROR_TYPES_FOR_FAILING
  // type, retries exhausted with RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE, or a
  // DLQ write that failed for good. The message names topic/partition/offset.
  absl::Status fatal;
};

// Pushes `batch` to the sink through the decorators, and routes `prefailed`
// (decode and filter failures) through the same DLQ / failing rules.
class Dispatcher {
 public:
  virtual ~Dispatcher() = default;
  virtual DispatchResult Dispatch(const std::vector<Message>& batch,
                                  std::vector<FailedMessage> prefailed) = 0;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_STAGES_H_
