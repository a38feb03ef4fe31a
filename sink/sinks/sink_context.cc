#include "sink/sinks/sink_context.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace sluice::sink {

absl::StatusOr<std::unique_ptr<OwnedDescriptor>> SinkContext::ResolveDescriptor(
    absl::string_view variable, absl::string_view class_name) const {
  if (!find_message) {
    return absl::InvalidArgumentError(
        absl::StrCat(variable, " needs a protobuf schema (INPUT_SCHEMA_DATA_TYPE=protobuf)"));
  }
  auto d = find_message(class_name);
  if (!d.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(variable, ": ", d.status().message()));
  }
  return OwnedDescriptor::Copy(*d);
}

absl::StatusOr<std::unique_ptr<OwnedDescriptor>> SinkContext::InputDescriptor() const {
  if (!find_message) return std::unique_ptr<OwnedDescriptor>();
  return ResolveDescriptor("INPUT_SCHEMA_PROTO_CLASS", env->GetOr("INPUT_SCHEMA_PROTO_CLASS", ""));
}

}  // namespace sluice::sink
