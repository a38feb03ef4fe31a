// The outermost layer (Firehose's SinkFinal): what is still failed after the
// fail handler, the retries and the DLQ is dropped, as SinkFinal.java:27-33
// at firehose 857761c6 does (it logs "Ignoring messages", counts
// firehose_global_messages_total{scope=IGNORED}, and the consumer commits past
// them). Sluice never drops silently: each dropped message is logged at warn
// with its error type, topic, partition and offset, and counted in
// firehose_global_messages_total{scope=IGNORED,type=TOTAL}.
//
// Not dropped: failures of a fatal outcome (the worker stops before
// committing past them) and failures left because a stop was requested
// during the retries (SIGTERM must not turn an unfinished retry into a drop;
// they stay uncommitted and are redelivered).
#ifndef SLUICE_SINK_DECORATORS_FINAL_H_
#define SLUICE_SINK_DECORATORS_FINAL_H_

#include <memory>
#include <vector>

#include "sink/decorators/retry_loop.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/stages.h"

namespace sluice::sink {

class FinalLayer : public Dispatcher {
 public:
  // `inner` owned; `metrics` not. `stop` may be null.
  FinalLayer(std::unique_ptr<Dispatcher> inner, Metrics* metrics, StopCheck stop)
      : inner_(std::move(inner)), metrics_(metrics), stop_(std::move(stop)) {}

  // The inner outcome, with its failures moved to `ignored` unless the
  // outcome is fatal or a stop was requested.
  DispatchResult Dispatch(const std::vector<Message>& batch,
                          std::vector<FailedMessage> prefailed) override;

 private:
  std::unique_ptr<Dispatcher> inner_;
  Metrics* metrics_;
  StopCheck stop_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_FINAL_H_
