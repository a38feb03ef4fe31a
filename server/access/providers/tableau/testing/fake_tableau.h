// A stateful fake of the Tableau REST API (JSON) endpoints the tableau
// provider uses (endpoint list and vendor doc links: README.md beside this
// file): sign-in to one site, paged listings of projects, users and content,
// site roles, and per-user capabilities. Failures are injectable through
// server().
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_TABLEAU_TESTING_FAKE_TABLEAU_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_TABLEAU_TESTING_FAKE_TABLEAU_H_

#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"
#include "server/access/providers/testing/fake_rest_server.h"

namespace sluice::access::testing {

class FakeTableau {
 public:
  // Site `content_url` with the site administrator `admin` / `password`;
  // nullptr when no port can be bound.
  static std::unique_ptr<FakeTableau> Start(std::string admin, std::string password,
                                            std::string content_url);

  FakeRestServer& server() { return *server_; }
  std::string url() const { return server_->base_url(); }
  std::string site_id() const { return "site-1"; }

  // Seeding; each returns the new item's id.
  std::string AddUser(const std::string& name, const std::string& site_role = "Unlicensed");
  std::string AddProject(const std::string& name, const std::string& parent_id = "");
  // `kind` is workbooks, views, datasources, flows or metrics; `extra` is
  // merged into the item (e.g. {"workbook": {"id": ...}} for a view).
  std::string AddItem(const std::string& kind, const std::string& name,
                      const std::string& project_id, const std::string& owner_id,
                      nlohmann::json extra = nlohmann::json::object());

  // Ends every credentials token (the next call with one gets 401).
  void ExpireSessions();
  int sign_ins();
  // "Name:Mode" capabilities of user `name` on item `id` of `kind`.
  std::set<std::string> Capabilities(const std::string& kind, const std::string& id,
                                     const std::string& name);
  std::string SiteRole(const std::string& name);
  // Sets user `name`'s site role, as a site admin would by hand.
  void SetSiteRole(const std::string& name, const std::string& site_role);

 private:
  FakeTableau() = default;
  FakeResponse Handle(const FakeRequest& req);
  FakeResponse Page(const FakeRequest& req, const std::string& plural, const std::string& singular,
                    const std::vector<nlohmann::json>& all);
  FakeResponse Permissions(const FakeRequest& req, const std::string& kind, const std::string& id,
                           const std::vector<std::string>& rest) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::string admin_, password_, content_url_;
  int next_id_ ABSL_GUARDED_BY(mu_) = 0;
  int sign_ins_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<std::string> tokens_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, nlohmann::json> users_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, nlohmann::json> projects_ ABSL_GUARDED_BY(mu_);
  // kind → id → item
  std::map<std::string, std::map<std::string, nlohmann::json>> items_ ABSL_GUARDED_BY(mu_);
  // (kind, id) → user id → capability → mode
  std::map<std::pair<std::string, std::string>,
           std::map<std::string, std::map<std::string, std::string>>>
      caps_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<FakeRestServer> server_;
};

}  // namespace sluice::access::testing

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_TABLEAU_TESTING_FAKE_TABLEAU_H_
