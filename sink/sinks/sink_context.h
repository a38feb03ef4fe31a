// What every sink factory receives: the configuration and the shared services
// of the worker. Split from registry.h so that sinks need not depend on the
// registry that lists them.
#ifndef SLUICE_SINK_SINKS_SINK_CONTEXT_H_
#define SLUICE_SINK_SINKS_SINK_CONTEXT_H_

#include <functional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "sink/env.h"
#include "sink/metrics.h"

namespace sluice::sink {

// Inputs of CreateSink. The pointers must outlive the sink.
struct SinkContext {
  const Env* env;     // all configuration variables
  Metrics* metrics;   // never null
  // Resolves a proto class (full proto name or Java class name) from the
  // schema registry. Null when INPUT_SCHEMA_DATA_TYPE=json.
  std::function<absl::StatusOr<const google::protobuf::Descriptor*>(absl::string_view)>
      find_message;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_SINK_CONTEXT_H_
