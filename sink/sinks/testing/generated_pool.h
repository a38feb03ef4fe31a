// SinkContext::find_message for sink tests: resolves a proto class from the
// test binary's generated pool (the messages linked into it).
#ifndef SLUICE_SINK_SINKS_TESTING_GENERATED_POOL_H_
#define SLUICE_SINK_SINKS_TESTING_GENERATED_POOL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace sluice::sink::testing {

// The message type `name` (full proto name), or NotFound naming it.
inline absl::StatusOr<const google::protobuf::Descriptor*> FindGenerated(absl::string_view name) {
  const auto* d =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(name));
  if (d == nullptr) return absl::NotFoundError(absl::StrCat("no message ", name));
  return d;
}

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_GENERATED_POOL_H_
