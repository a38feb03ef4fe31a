// sluice-sink's process wiring: configuration → metrics → schema registry →
// per-worker consumer, decoder, filter and decorated sink → control API →
// worker threads, with SIGTERM/SIGINT handled as a clean stop.
#ifndef SLUICE_SINK_APP_H_
#define SLUICE_SINK_APP_H_

#include "sink/env.h"

namespace sluice::sink {

// Runs sluice-sink with configuration `env` until SIGTERM/SIGINT (exit code
// 0 after every worker finished its batch and committed) or a fatal worker
// error (1). A configuration error is logged naming the variable (exit 2).
// Must be called from the main thread before any other thread is started:
// it blocks SIGTERM/SIGINT for the threads it creates.
int RunSinkApp(const Env& env);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_APP_H_
