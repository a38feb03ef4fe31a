// Who performs a core operation, as the access rules need it (README,
// "Security model"): the caller's identity and whether it is an access admin.
#ifndef SLUICE_SERVER_ACCESS_CORE_ACTOR_H_
#define SLUICE_SERVER_ACCESS_CORE_ACTOR_H_

#include <string>

namespace sluice::access {

struct Actor {
  std::string identity;  // the authenticated caller (an email in header mode)
  bool admin = false;    // a member of access.admins / access.admin_groups
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_ACTOR_H_
