// Calls to one Tableau site through the REST API (JSON): sign-in, paged
// listings, users and site roles, and content permissions. Every call goes
// through the injected HttpClient with the cached credentials token
// (X-Tableau-Auth), renewed once when Tableau answers 401.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_TABLEAU_TABLEAU_CLIENT_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_TABLEAU_TABLEAU_CLIENT_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "server/access/providers/rest/rest.h"

namespace sluice::access::tableau {

// credentials {host, username, password, content_url, api_version?}.
struct Target {
  std::string base;
  std::string username;
  std::string password;
  std::string content_url;
  std::string api_version;  // e.g. "3.12"
  std::string session_key;
};

// InvalidArgument naming the missing or malformed credentials field.
absl::StatusOr<Target> ParseTarget(const google::protobuf::Struct& credentials);

// A site user: id, name (the account), siteRole.
struct User {
  std::string id;
  std::string name;
  std::string site_role;
};

class Client {
 public:
  Client(HttpClient* http, rest::SessionCache* sessions, rest::CallLimits limits, Target target)
      : http_(http), sessions_(sessions), limits_(limits), target_(std::move(target)) {}

  // POST /api/<v>/auth/signin now: InvalidArgument naming credentials
  // username/password/content_url when Tableau refuses them, host when it
  // cannot be reached.
  absl::Status SignIn();
  // `method` /api/<v>/sites/<site id>/`path` (site id from the sign-in).
  absl::StatusOr<rest::JsonResponse> Send(const std::string& method, const std::string& path,
                                          std::optional<nlohmann::json> body);
  // Every item of GET .../`plural` ({"<plural>": {"<singular>": [...]}}),
  // page by page (pageSize 1000, pageNumber from 1, until totalAvailable).
  absl::StatusOr<std::vector<nlohmann::json>> ListAll(const std::string& plural,
                                                      const std::string& singular);
  // The user named `name` (users?filter=name:eq:<name>), or nullopt.
  absl::StatusOr<std::optional<User>> FindUser(const std::string& name);
  // PUT users/<id> {"user": {"siteRole"}}.
  absl::Status SetSiteRole(const std::string& user_id, const std::string& site_role);
  // GET <plural>/<id>/permissions: its granteeCapabilities; NotFound (404)
  // when the item is gone.
  absl::StatusOr<nlohmann::json> Grantees(const std::string& plural, const std::string& id);
  // PUT <plural>/<id>/permissions for one user; Tableau ignores a
  // capability the user already has (either mode).
  absl::Status AddCapabilities(const std::string& plural, const std::string& id,
                               const std::string& user_id,
                               const std::vector<std::pair<std::string, std::string>>& caps);
  // DELETE <plural>/<id>/permissions/users/<user>/<name>/<mode>; 404 is OK.
  absl::Status DeleteCapability(const std::string& plural, const std::string& id,
                                const std::string& user_id, const std::string& name,
                                const std::string& mode);

  const Target& target() const { return target_; }

 private:
  absl::StatusOr<rest::Session> NewSession();
  absl::Status Check(const std::string& what, const absl::StatusOr<rest::JsonResponse>& r);
  HttpClient* http_;
  rest::SessionCache* sessions_;
  rest::CallLimits limits_;
  Target target_;
};

}  // namespace sluice::access::tableau

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_TABLEAU_TABLEAU_CLIENT_H_
