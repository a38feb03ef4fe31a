// A stateful fake of the Metabase REST endpoints the metabase provider uses
// (endpoint list and vendor doc links: README.md beside this file). Users,
// groups, memberships, databases with tables, collections and both
// permission graphs live in memory; graph writes check the revision (409)
// like Metabase. Failures are injectable through server().
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_METABASE_TESTING_FAKE_METABASE_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_METABASE_TESTING_FAKE_METABASE_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"
#include "server/access/providers/testing/fake_rest_server.h"

namespace sluice::access::testing {

class FakeMetabase {
 public:
  // Answer shapes: kCurrent (0.42+: {"data": [...]} lists, graph entries
  // nested under "data") or kLegacy (0.37: bare arrays, flat entries).
  enum class Shape { kCurrent, kLegacy };
  // An admin `admin_email` / `admin_password`, the groups "All Users" (1)
  // and "Administrators" (2); nullptr when no port can be bound.
  static std::unique_ptr<FakeMetabase> Start(std::string admin_email, std::string admin_password,
                                             Shape shape = Shape::kCurrent);

  FakeRestServer& server() { return *server_; }
  std::string url() const { return server_->base_url(); }

  // Seeding. Each returns the new object's id.
  int AddUser(const std::string& email, bool active = true);
  int AddDatabase(const std::string& name, const std::vector<std::string>& tables,
                  const std::string& schema = "public");
  // Table `name` of database `db_id`.
  int TableId(int db_id, const std::string& name);
  int AddCollection(const std::string& name, int parent_id = 0, int personal_owner_id = 0);
  int AddGroup(const std::string& name);

  // Ends every session (the next call with an old one gets 401).
  void ExpireSessions();
  int sign_ins();
  // Members' emails of the group named `name` (empty when there is none).
  std::set<std::string> Members(const std::string& group_name);
  int GroupId(const std::string& name);
  // The data graph entry of group `name` for `db_id` (flat, "data" unwrapped).
  nlohmann::json DataEntry(const std::string& group_name, int db_id);
  // The collection graph entry of group `name` for collection `id`.
  std::string CollectionEntry(const std::string& group_name, int id);
  int graph_revision();

 private:
  FakeMetabase() = default;
  FakeResponse Handle(const FakeRequest& req);
  FakeResponse HandleLocked(const FakeRequest& req) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  FakeResponse List(nlohmann::json items) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  FakeResponse PutGraph(const FakeRequest& req, bool collections)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  struct Membership {
    int id;
    int group_id;
    int user_id;
  };

  absl::Mutex mu_;
  std::string admin_email_, admin_password_;
  Shape shape_ = Shape::kCurrent;
  int next_id_ ABSL_GUARDED_BY(mu_) = 100;
  int sign_ins_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<std::string> sessions_ ABSL_GUARDED_BY(mu_);
  std::map<int, nlohmann::json> users_ ABSL_GUARDED_BY(mu_);
  std::map<int, std::string> groups_ ABSL_GUARDED_BY(mu_);
  std::map<int, Membership> memberships_ ABSL_GUARDED_BY(mu_);
  nlohmann::json databases_ ABSL_GUARDED_BY(mu_) = nlohmann::json::array();
  nlohmann::json collections_ ABSL_GUARDED_BY(mu_) = nlohmann::json::array();
  int data_revision_ ABSL_GUARDED_BY(mu_) = 1;
  int coll_revision_ ABSL_GUARDED_BY(mu_) = 1;
  nlohmann::json data_graph_ ABSL_GUARDED_BY(mu_) = nlohmann::json::object();
  nlohmann::json coll_graph_ ABSL_GUARDED_BY(mu_) = nlohmann::json::object();
  std::unique_ptr<FakeRestServer> server_;
};

}  // namespace sluice::access::testing

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_METABASE_TESTING_FAKE_METABASE_H_
