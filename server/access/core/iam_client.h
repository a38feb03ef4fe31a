// The identity-provider lookup a policy's `iam` config names (Guardian's
// IAM client): the appeal creator's profile, read at appeal creation.
#ifndef SLUICE_SERVER_ACCESS_CORE_IAM_CLIENT_H_
#define SLUICE_SERVER_ACCESS_CORE_IAM_CLIENT_H_

#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/struct.pb.h"
#include "proto/sluice/access/v1beta1/access.pb.h"

namespace sluice::access {

namespace pb = ::sluice::access::v1beta1;

// Fetches an appeal creator's profile (the policy's IAM config).
class IamClient {
 public:
  virtual ~IamClient() = default;
  // The user's profile mapped through `iam.schema` (creator field → response
  // dot path). FailedPrecondition with the IAM error on failure.
  virtual absl::StatusOr<google::protobuf::Struct> GetUser(const pb::IAM& iam,
                                                          const std::string& user_email) = 0;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_IAM_CLIENT_H_
