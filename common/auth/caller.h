// The authenticated caller of an RPC and the admin lists that give roles.
// Plain data: core services use it without depending on gRPC.
#ifndef SLUICE_COMMON_AUTH_CALLER_H_
#define SLUICE_COMMON_AUTH_CALLER_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace sluice::auth {

// Who is calling, as established by the server's Authenticator.
struct Caller {
  std::string identity;             // the email (header mode) or the JWT identity claim
  std::vector<std::string> groups;  // the JWT groups claim (empty in header mode)
};

// An admin role: members by identity, or by group (the JWT groups claim).
// Configured as `access.admins` / `access.admin_groups` and
// `notification.admins` / `notification.admin_groups`.
struct AdminList {
  std::set<std::string> identities;
  std::set<std::string> groups;

  bool Contains(const Caller& caller) const {
    if (identities.count(caller.identity) > 0) return true;
    for (const auto& g : caller.groups) {
      if (groups.count(g) > 0) return true;
    }
    return false;
  }
  // PermissionDenied "<identity> may not <what>: admins only (<setting>)"
  // unless the caller is a member.
  absl::Status Require(const Caller& caller, const std::string& what,
                       const std::string& setting) const {
    if (Contains(caller)) return absl::OkStatus();
    return absl::PermissionDeniedError(
        absl::StrCat(caller.identity, " may not ", what, ": admins only (", setting, ")"));
  }
};

}  // namespace sluice::auth

#endif  // SLUICE_COMMON_AUTH_CALLER_H_
