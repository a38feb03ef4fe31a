// The outermost layer (Firehose's SinkWithFailHandler): a failure whose type
// is in ERROR_TYPES_FOR_FAILING, left after retries and the DLQ, makes the
// outcome fatal, so that the worker stops before committing past it.
#ifndef SLUICE_SINK_DECORATORS_FAIL_HANDLER_H_
#define SLUICE_SINK_DECORATORS_FAIL_HANDLER_H_

#include <memory>
#include <set>
#include <vector>

#include "sink/message.h"
#include "sink/stages.h"

namespace sluice::sink {

class FailHandler : public Dispatcher {
 public:
  // `inner` owned; `failing` is ERROR_TYPES_FOR_FAILING.
  FailHandler(std::unique_ptr<Dispatcher> inner, std::set<ErrorType> failing)
      : inner_(std::move(inner)), failing_(std::move(failing)) {}

  // The inner outcome; when it is not fatal yet and a failure has a failing
  // type, fatal is FailedPrecondition naming that failure's error type,
  // topic, partition and offset.
  DispatchResult Dispatch(const std::vector<Message>& batch,
                          std::vector<FailedMessage> prefailed) override;

 private:
  std::unique_ptr<Dispatcher> inner_;
  std::set<ErrorType> failing_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_FAIL_HANDLER_H_
