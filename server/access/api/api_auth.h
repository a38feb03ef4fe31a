// What every access gRPC handler needs to authorize a call: the server's
// Authenticator and the access admin list.
#ifndef SLUICE_SERVER_ACCESS_API_API_AUTH_H_
#define SLUICE_SERVER_ACCESS_API_API_AUTH_H_

#include <string>

#include "common/auth/authenticator.h"
#include "common/auth/caller.h"
#include "common/paging.h"
#include "server/access/core/actor.h"

namespace sluice::access {

struct ApiAuth {
  const auth::Authenticator* authenticator;  // borrowed
  const auth::AdminList* admins;             // borrowed: access.admins / admin_groups
  // access.max_page_size: a list's page when `size` is unset, and its largest.
  int max_page_size = kMaxPageSize;
  // access.read_scope: all → every authenticated caller lists every appeal,
  // approval and grant (Guardian's visibility); own (false) → non-admins
  // list only their own and those they approve.
  bool read_all = false;

  // The core's view of `caller`.
  Actor ActorOf(const auth::Caller& caller) const {
    return Actor{caller.identity, admins->Contains(caller)};
  }
  // The actor of a read-only call (GetAppeal, GetGrant): under read_scope
  // all it may read what an admin may; never pass it to a write.
  Actor ReaderOf(const auth::Caller& caller) const {
    Actor a = ActorOf(caller);
    if (read_all) a.admin = true;
    return a;
  }
  // Whether `caller`'s lists of appeals, approvals and grants are narrowed
  // to what they hold, created or approve (a non-admin under read_scope own).
  bool NarrowReads(const auth::Caller& caller) const {
    return !read_all && !admins->Contains(caller);
  }
  // PermissionDenied "<who> may not <what>: admins only (access.admins)"
  // unless `caller` is an access admin.
  absl::Status RequireAdmin(const auth::Caller& caller, const std::string& what) const {
    return admins->Require(caller, what, "access.admins");
  }
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_API_API_AUTH_H_
