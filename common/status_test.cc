#include "common/status.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(ToGrpcStatus, KeepsEveryCanonicalCodeAndMessage) {
  const std::pair<absl::Status, grpc::StatusCode> cases[] = {
      {absl::NotFoundError("policy \"x\" not found"), grpc::StatusCode::NOT_FOUND},
      {absl::InvalidArgumentError("steps[0].name: required"), grpc::StatusCode::INVALID_ARGUMENT},
      {absl::AlreadyExistsError("dup"), grpc::StatusCode::ALREADY_EXISTS},
      {absl::FailedPreconditionError("pending"), grpc::StatusCode::FAILED_PRECONDITION},
      {absl::PermissionDeniedError("no"), grpc::StatusCode::PERMISSION_DENIED},
      {absl::UnauthenticatedError("who"), grpc::StatusCode::UNAUTHENTICATED},
      {absl::InternalError("bug"), grpc::StatusCode::INTERNAL},
      {absl::UnavailableError("db down"), grpc::StatusCode::UNAVAILABLE},
  };
  for (const auto& [in, code] : cases) {
    grpc::Status out = ToGrpcStatus(in);
    EXPECT_EQ(out.error_code(), code) << in;
    EXPECT_EQ(out.error_message(), std::string(in.message()));
    EXPECT_EQ(FromGrpcStatus(out), in);
  }
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

}  // namespace
}  // namespace sluice
