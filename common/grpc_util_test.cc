#include "common/grpc_util.h"

#include <stdexcept>

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(Guarded, PassesStatusThrough) {
  auto st = Guarded("Svc/M", [] { return absl::NotFoundError("gone"); });
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(), "gone");
  EXPECT_TRUE(Guarded("Svc/M", [] { return absl::OkStatus(); }).ok());
}

TEST(Guarded, ExceptionBecomesInternal) {
  auto st = Guarded("Svc/Boom", []() -> absl::Status { throw std::runtime_error("kaboom"); });
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_NE(st.error_message().find("Svc/Boom"), std::string::npos);
  EXPECT_EQ(st.error_message().find("kaboom"), std::string::npos);  // not leaked
  auto st2 = Guarded("Svc/Int", []() -> absl::Status { throw 42; });
  EXPECT_EQ(st2.error_code(), grpc::StatusCode::INTERNAL);
}

TEST(IsEmail, AcceptsAndRejects) {
  EXPECT_TRUE(IsEmail("alice@example.com"));
  EXPECT_TRUE(IsEmail("a.b+c@x"));
  EXPECT_FALSE(IsEmail(""));
  EXPECT_FALSE(IsEmail("alice"));
  EXPECT_FALSE(IsEmail("@x.com"));
  EXPECT_FALSE(IsEmail("alice@"));
  EXPECT_FALSE(IsEmail("a@b@c"));
  EXPECT_FALSE(IsEmail("a b@c.com"));
}

}  // namespace
}  // namespace sluice
