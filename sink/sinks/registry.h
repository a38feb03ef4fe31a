// The one table of sink types (docs/architecture.md convention 3: plugins are folders in
// one explicit registry, no static self-registration). SINK_TYPE selects the
// entry; names are Firehose's.
#ifndef SLUICE_SINK_SINKS_REGISTRY_H_
#define SLUICE_SINK_SINKS_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sink/message.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// Builds the sink named `type` (SINK_TYPE lower-cased: "log", "http", "jdbc",
// "grpc") from the variables in `ctx.env`.
// Errors: unknown type -> InvalidArgument
//   `unknown SINK_TYPE "x"; known types: grpc, http, jdbc, log`;
// a missing or malformed variable -> InvalidArgument naming the variable.
absl::StatusOr<std::unique_ptr<Sink>> CreateSink(absl::string_view type,
                                                 const SinkContext& ctx);

// The registered types, sorted: {"grpc", "http", "jdbc", "log"}.
std::vector<std::string> KnownSinkTypes();

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_REGISTRY_H_
