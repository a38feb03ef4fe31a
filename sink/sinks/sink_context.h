// What every sink factory receives: the configuration and the shared services
// of the worker. Split from registry.h so that sinks need not depend on the
// registry that lists them.
#ifndef SLUICE_SINK_SINKS_SINK_CONTEXT_H_
#define SLUICE_SINK_SINKS_SINK_CONTEXT_H_

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "sink/env.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/proto_values.h"

namespace sluice::sink {

// Inputs of CreateSink. The pointers must outlive the sink.
struct SinkContext {
  const Env* env;     // all configuration variables
  Metrics* metrics;   // never null
  // Resolves a proto class (full proto name or Java class name) from the
  // schema registry. Null when INPUT_SCHEMA_DATA_TYPE=json.
  std::function<absl::StatusOr<const google::protobuf::Descriptor*>(absl::string_view)>
      find_message;

  // Resolves `class_name` (the value of variable `variable`) and copies it
  // out of the registry's pool, so that the sink keeps a descriptor that a
  // schema refresh cannot free. InvalidArgument naming `variable` when there
  // is no registry (INPUT_SCHEMA_DATA_TYPE=json) or the class is unknown.
  absl::StatusOr<std::unique_ptr<OwnedDescriptor>> ResolveDescriptor(
      absl::string_view variable, absl::string_view class_name) const;

  // INPUT_SCHEMA_PROTO_CLASS resolved as above for protobuf input; null (and
  // OK) for JSON input, where there is no registry.
  absl::StatusOr<std::unique_ptr<OwnedDescriptor>> InputDescriptor() const;
};

// The registry's factory for a sink that follows the recipe in
// sink/sinks/README.md: `T::Config::FromEnv(env, ctx)` reads and checks the
// sink's variables (errors name the variable), then
// `T::Create(config, metrics)` builds the sink.
template <typename T>
absl::StatusOr<std::unique_ptr<Sink>> CreateFromContext(const SinkContext& ctx) {
  auto config = T::Config::FromEnv(*ctx.env, ctx);
  if (!config.ok()) return config.status();
  auto sink = T::Create(*std::move(config), ctx.metrics);
  if (!sink.ok()) return sink.status();
  return std::unique_ptr<Sink>(*std::move(sink));
}

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_SINK_CONTEXT_H_
