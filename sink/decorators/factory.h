// The one place where the sink decorators are composed (docs/architecture.md convention
// 4), in goto Firehose's order (FirehoseConsumerFactory.java:164-170 at firehose
// 857761c6: SinkFinal(SinkWithDlq(SinkWithRetry(SinkWithFailHandler(sink))))):
//
//   Final( Dlq?( Retry+FailHandler( Logging( Metered( <SINK_TYPE sink> )))))
//
// The fail handler is innermost: the retry layer checks every push's
// failures (and the decode/filter failures) against ERROR_TYPES_FOR_FAILING
// before it retries anything (fail_handler.h).
//
// Every layer is a Dispatcher: it takes the batch and the decode/filter
// failures (which enter at the top and are never pushed or retried) and
// returns its outcome, the failed messages plus any fatal status, as a value.
//
// Rules, as Firehose's ErrorHandler (ErrorHandler.java:28-43) applies them:
// - A failure whose type is in ERROR_TYPES_FOR_FAILING stops the worker at
//   once, with a message naming topic/partition/offset; nothing is retried or
//   dead-lettered (SinkWithFailHandler.java:33-40).
// - Retry re-pushes failures whose type is in ERROR_TYPES_FOR_RETRY, and only
//   those (SinkWithRetry.java:58,115), whether or not the DLQ is enabled.
// - With DLQ_SINK_ENABLE, failures left after the retries whose type is in
//   ERROR_TYPES_FOR_DLQ go to the DLQ writer (SinkWithDlq.java:50); an empty
//   ERROR_TYPES_FOR_DLQ (the default) dead-letters nothing.
// - What is left is dropped by the final layer (SinkFinal.java:27-33), logged
//   at warn per message and counted in firehose_global_messages_total
//   {scope=IGNORED} (final.h), unless a stop was requested meanwhile.
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
