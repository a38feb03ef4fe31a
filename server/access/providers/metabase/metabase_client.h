// Calls to one Metabase instance's REST API (https://www.metabase.com/docs/
// latest/api): session sign-in, users, permission groups and memberships,
// and the two permission graphs with their revision. Every call goes
// through the injected HttpClient with the cached session
// (X-Metabase-Session), renewed once when Metabase answers 401.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_METABASE_METABASE_CLIENT_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_METABASE_METABASE_CLIENT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/access/providers/rest/rest.h"

namespace sluice::access::metabase {

// Where and as whom to call: credentials {host, username (or Guardian's
// docs' `user`), password}.
struct Target {
  std::string base;  // host without trailing '/'
  std::string username;
  std::string password;
  std::string session_key;
};

// InvalidArgument naming the missing or malformed credentials field.
absl::StatusOr<Target> ParseTarget(const google::protobuf::Struct& credentials);

// A Metabase user (GET /api/user).
struct User {
  int id = 0;
  std::string email;
};

// A permissions group (GET /api/permissions/group).
struct Group {
  int id = 0;
  std::string name;
  int member_count = 0;
};

// A member of a group (GET /api/permissions/group/:id).
struct Member {
  int user_id = 0;
  int membership_id = 0;
  std::string email;
};

// A permission graph (GET /api/permissions/graph or /api/collection/graph):
// {"revision": N, "groups": {"<group id>": {"<database or collection id>":
// ...}}}. `wrapped` is true when database entries nest their data
// permissions under "data" (Metabase 0.43+) instead of at the top (0.37–0.42,
// the shape Guardian writes).
struct Graph {
  int revision = 0;
  nlohmann::json groups = nlohmann::json::object();
  bool wrapped = false;
};

class Client {
 public:
  Client(HttpClient* http, rest::SessionCache* sessions, rest::CallLimits limits, Target target)
      : http_(http), sessions_(sessions), limits_(limits), target_(std::move(target)) {}

  // POST /api/session now (also at registration): InvalidArgument naming
  // credentials.username/password when Metabase refuses them,
  // credentials.host when it cannot be reached.
  absl::Status SignIn();
  // GET `path` (with its query); the JSON answer, or a Status for a non-2xx.
  absl::StatusOr<nlohmann::json> Get(const std::string& path);
  // `method` `path` with a JSON body; the answer as it came (any status).
  absl::StatusOr<rest::JsonResponse> Send(const std::string& method, const std::string& path,
                                          std::optional<nlohmann::json> body);

  // GET /api/database?include=tables: each database with its tables (an
  // array in 0.37, {"data": [...]} from 0.42 on).
  absl::StatusOr<nlohmann::json> Databases();
  // GET /api/collection: every collection (personal ones included).
  absl::StatusOr<nlohmann::json> Collections();
  absl::StatusOr<std::vector<Group>> Groups();
  // The active user whose email equals `email` (case-insensitively), paging
  // GET /api/user?query=...&limit=&offset=; nullopt when there is none.
  absl::StatusOr<std::optional<User>> FindUser(const std::string& email);
  // Members of group `id`; NotFound when the group is gone (404).
  absl::StatusOr<std::vector<Member>> Members(int id);
  // POST /api/permissions/group {"name"}: the new group's id.
  absl::StatusOr<int> CreateGroup(const std::string& name);
  // POST /api/permissions/membership {"group_id", "user_id"}.
  absl::Status AddMember(int group_id, int user_id);
  // DELETE /api/permissions/membership/:id; a 404 (already gone) is OK.
  absl::Status RemoveMembership(int membership_id);
  // GET /api/permissions/graph (`collections` false) or /api/collection/graph.
  absl::StatusOr<Graph> ReadGraph(bool collections);
  // PUT the graph's entries for `groups` with `revision`: true when applied,
  // false on 409 (someone else changed the graph since it was read).
  absl::StatusOr<bool> WriteGraph(bool collections, int revision, const nlohmann::json& groups);

  const Target& target() const { return target_; }

 private:
  absl::StatusOr<rest::Session> NewSession();
  HttpClient* http_;
  rest::SessionCache* sessions_;
  rest::CallLimits limits_;
  Target target_;
};

}  // namespace sluice::access::metabase

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_METABASE_METABASE_CLIENT_H_
