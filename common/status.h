// The one mapping between domain errors (absl::Status) and gRPC statuses.
// absl's canonical codes and gRPC's share numbering (both follow
// google/rpc/code.proto), so the mapping keeps code and message unchanged;
// handlers never invent their own.
#ifndef SLUICE_COMMON_STATUS_H_
#define SLUICE_COMMON_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace sluice {

// absl::Status → grpc::Status with the same code and message.
grpc::Status ToGrpcStatus(const absl::Status& status);

// grpc::Status → absl::Status with the same code and message.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace sluice

#endif  // SLUICE_COMMON_STATUS_H_
