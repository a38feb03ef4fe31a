// A stateful fake of the Grafana HTTP API endpoints the grafana provider
// uses (endpoint list and vendor doc links: README.md beside this file):
// organization users, folders (nested), dashboards, and their permission
// lists, with dashboards inheriting their folder's items. Basic auth for one
// admin and Bearer service account tokens. Failures are injectable through
// server().
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_GRAFANA_TESTING_FAKE_GRAFANA_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_GRAFANA_TESTING_FAKE_GRAFANA_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"
#include "server/access/providers/testing/fake_rest_server.h"

namespace sluice::access::testing {

class FakeGrafana {
 public:
  // Organization 1 with admin `login` / `password` (user id 1) and the
  // service account token `token`; nullptr when no port can be bound.
  static std::unique_ptr<FakeGrafana> Start(std::string login, std::string password,
                                            std::string token);

  FakeRestServer& server() { return *server_; }
  std::string url() const { return server_->base_url(); }

  // A user of organization 1; returns its id.
  int AddUser(const std::string& email, const std::string& login = "");
  // A folder (inside `parent_uid` when set); returns its uid. New folders
  // carry the default items role Viewer: view and role Editor: edit.
  std::string AddFolder(const std::string& title, const std::string& parent_uid = "");
  // A dashboard in `folder_uid` ("" = General); returns its numeric id.
  int AddDashboard(const std::string& title, const std::string& folder_uid = "");
  std::string DashboardUid(int id);
  // The direct (non-inherited) level of `email` on a dashboard or folder uid
  // (0 = none).
  int Level(const std::string& uid, const std::string& email);
  // Every direct item of `uid`, as stored.
  nlohmann::json Items(const std::string& uid);
  // Replaces the items of `uid` as another writer would.
  void SetItems(const std::string& uid, nlohmann::json items);

 private:
  FakeGrafana() = default;
  FakeResponse Handle(const FakeRequest& req);
  FakeResponse PermissionList(const std::string& uid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  FakeResponse SetPermissions(const std::string& uid, const FakeRequest& req)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  struct Item {
    nlohmann::json meta;  // search hit: id, uid, title, type, folderUid, ...
    nlohmann::json items = nlohmann::json::array();  // direct permission items
  };

  absl::Mutex mu_;
  std::string login_, password_, token_;
  int next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<int, nlohmann::json> users_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Item> items_ ABSL_GUARDED_BY(mu_);  // by uid, folders and dashboards
  std::unique_ptr<FakeRestServer> server_;
};

}  // namespace sluice::access::testing

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_GRAFANA_TESTING_FAKE_GRAFANA_H_
