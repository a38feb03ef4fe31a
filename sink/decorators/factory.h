// The one place where the sink decorators are composed (docs/architecture.md convention
// 4), as Firehose composes SinkWithFailHandler(SinkWithDlq(SinkWithRetry(
// SinkWithMetrics(sink)))):
//
//   FailHandler( Dlq?( Retry( Logging( Metered( <SINK_TYPE sink> )))))
//
// Every layer is a Dispatcher: it takes the batch and the decode/filter
// failures (which enter at the top and pass the retry layer untouched) and
// returns its outcome, the failed messages plus any fatal status, as a value.
//
// Rules (issue 7, "Errors, retry and the dead-letter queue"):
// - Retry re-pushes failures whose type is in ERROR_TYPES_FOR_RETRY. With the
//   DLQ disabled it also retries every type not in ERROR_TYPES_FOR_FAILING
//   ("retry until a success code is received").
// - With DLQ_SINK_ENABLE, failures left after the retries whose type is in
//   ERROR_TYPES_FOR_DLQ (when empty: any type not in ERROR_TYPES_FOR_FAILING)
//   go to the DLQ writer; decode and filter failures are routed the same way.
// - Anything left whose type is in ERROR_TYPES_FOR_FAILING stops the worker
//   with a message naming topic/partition/offset.
#ifndef SLUICE_SINK_DECORATORS_FACTORY_H_
#define SLUICE_SINK_DECORATORS_FACTORY_H_

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "sink/config.h"
#include "sink/decorators/dlq.h"
#include "sink/decorators/retry.h"
#include "sink/metrics.h"
#include "sink/stages.h"

namespace sluice::sink {

// Test seams for the factory.
struct DispatcherHooks {
  Sleeper sleep;                        // default: BackoffSleep (real, sliced)
  StopCheck stop;                       // may be null
  KeepAlive keep_alive;                 // the worker's consumer keep-alive; may be null
  std::unique_ptr<DlqWriter> dlq_writer;  // default: make_dlq_writer(errors, ...)
  // Builds the writer per DLQ_WRITER_TYPE (app.cc passes sink/dlq's
  // CreateDlqWriter). Needed when DLQ_SINK_ENABLE and dlq_writer is null.
  std::function<absl::StatusOr<std::unique_ptr<DlqWriter>>(const ErrorConfig&, const RetryHooks&)>
      make_dlq_writer;
};

// Wraps `sink` (one worker's instance) per `errors`. `metrics` not owned.
// Errors: the DLQ writer cannot be created (or, a bug, no factory for it).
absl::StatusOr<std::unique_ptr<Dispatcher>> BuildDispatcher(const ErrorConfig& errors,
                                                            std::unique_ptr<Sink> sink,
                                                            Metrics* metrics,
                                                            DispatcherHooks hooks = {});

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_FACTORY_H_
