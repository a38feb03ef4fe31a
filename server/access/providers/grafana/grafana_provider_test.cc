// The grafana plugin against the stateful fake of Grafana's HTTP API,
// through the real libcurl HttpClient.
#include "server/access/providers/grafana/grafana_provider.h"

#include <gtest/gtest.h>

#include <thread>

#include "server/access/core/json.h"
#include "server/access/providers/grafana/testing/fake_grafana.h"

namespace sluice::access {
namespace {

using nlohmann::json;
using testing::FakeGrafana;

class GrafanaProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ = FakeGrafana::Start("admin", "admin-pw", "glsa_token");
    ASSERT_NE(fake_, nullptr);
    ops_ = fake_->AddFolder("Ops");
    k8s_ = fake_->AddFolder("Kubernetes", ops_);
    cpu_ = fake_->AddDashboard("CPU", k8s_);
    home_ = fake_->AddDashboard("Home");
    fake_->AddUser("alice@example.com", "alice");
    bob_ = fake_->AddUser("bob@example.com");
    rest::CallLimits limits;
    limits.timeout = absl::Seconds(2);
    plugin_ = NewGrafanaProvider(http_.get(), limits);
    // Guardian's documented config (docs/providers/grafana.md) plus folders.
    ASSERT_TRUE(JsonStringToProto(R"({"type": "grafana", "urn": "1",
      "credentials": {"host": ")" + fake_->url() +
                                      R"(", "username": "admin",
                      "password": "admin-pw"},
      "resources": [
        {"type": "dashboard", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "viewer", "permissions": ["view"]}, {"id": "editor", "permissions": ["edit"]},
          {"id": "admin", "permissions": ["admin"]}]},
        {"type": "folder", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "viewer", "permissions": ["view"]}]}]})",
                                  &config_)
                    .ok());
  }

  v1beta1::Resource Find(const std::string& urn) {
    auto all = plugin_->GetResources(config_);
    EXPECT_TRUE(all.ok()) << all.status();
    if (all.ok()) {
      for (const auto& r : *all) {
        if (r.urn() == urn) return r;
      }
    }
    ADD_FAILURE() << "no resource " << urn;
    return {};
  }
  AccessRequest Req(const std::string& urn, const std::string& perm,
                    const std::string& account = "alice@example.com") {
    return {account, "user", Find(urn), perm, {perm}};
  }

  std::unique_ptr<HttpClient> http_ = NewCurlHttpClient();
  std::unique_ptr<FakeGrafana> fake_;
  std::unique_ptr<ProviderClient> plugin_;
  v1beta1::ProviderConfig config_;
  std::string ops_, k8s_;
  int cpu_ = 0, home_ = 0, bob_ = 0;
};

TEST_F(GrafanaProviderTest, ValidatesConfigWithARealCall) {
  ASSERT_TRUE(plugin_->ValidateConfig(config_).ok()) << plugin_->ValidateConfig(config_);
  auto bad = config_;
  (*bad.mutable_credentials()->mutable_fields())["password"].set_string_value("nope");
  auto st = plugin_->ValidateConfig(bad);
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  EXPECT_NE(st.message().find("credentials.password"), std::string::npos) << st;
  // A service account token instead of a password.
  auto token = config_;
  token.mutable_credentials()->mutable_fields()->erase("username");
  token.mutable_credentials()->mutable_fields()->erase("password");
  (*token.mutable_credentials()->mutable_fields())["api_key"].set_string_value("glsa_token");
  EXPECT_TRUE(plugin_->ValidateConfig(token).ok());
  (*token.mutable_credentials()->mutable_fields())["api_key"].set_string_value("wrong");
  EXPECT_NE(plugin_->ValidateConfig(token).message().find("credentials.api_key"),
            std::string::npos);
  bad = config_;
  bad.set_urn("7");  // Guardian sends the urn as X-Grafana-Org-Id
  EXPECT_TRUE(absl::IsInvalidArgument(plugin_->ValidateConfig(bad)));
  bad = config_;
  bad.mutable_resources(0)->mutable_roles(0)->mutable_permissions(0)->set_string_value("read");
  EXPECT_NE(plugin_->ValidateConfig(bad).message().find("resources[0].roles[0].permissions"),
            std::string::npos);
}

TEST_F(GrafanaProviderTest, DiscoversFoldersAndDashboardsPageByPage) {
  for (int i = 0; i < 1100; ++i) fake_->AddDashboard("bulk-" + std::to_string(i), ops_);
  auto all = plugin_->GetResources(config_);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->size(), 2u + 2u + 1100u);
  EXPECT_EQ(fake_->server().Count("GET", "/api/search"), 1 + 2);  // folders, then 2 pages
  std::map<std::string, v1beta1::Resource> by_urn;
  for (const auto& r : *all) by_urn[r.urn()] = r;
  json cpu = StructToJson(by_urn[std::to_string(cpu_)].details());
  EXPECT_EQ(cpu["folder_uid"], k8s_);
  EXPECT_EQ(cpu["folder_path"], "Ops/Kubernetes");
  EXPECT_EQ(cpu["uid"], fake_->DashboardUid(cpu_));
  EXPECT_EQ(by_urn[k8s_].type(), "folder");
  EXPECT_EQ(StructToJson(by_urn[k8s_].details())["parent_uid"], ops_);
}

TEST_F(GrafanaProviderTest, GrantMergesRevokeRemovesOnlyItsOwn) {
  std::string uid = fake_->DashboardUid(home_);
  fake_->SetItems(uid, json::array({{{"role", "Viewer"}, {"permission", 1}},
                                    {{"teamId", 7}, {"permission", 2}},
                                    {{"userId", bob_}, {"permission", 4}}}));  // bob: admin
  auto view = Req(std::to_string(home_), "view");
  ASSERT_TRUE(plugin_->GrantAccess(config_, view).ok());
  EXPECT_EQ(fake_->Level(uid, "alice@example.com"), 1);
  EXPECT_EQ(fake_->Items(uid).size(), 4u) << fake_->Items(uid);  // nothing replaced
  ASSERT_TRUE(plugin_->GrantAccess(config_, view).ok());
  EXPECT_EQ(fake_->Items(uid).size(), 4u);
  auto edit = Req(std::to_string(home_), "edit");
  ASSERT_TRUE(plugin_->GrantAccess(config_, edit).ok());
  EXPECT_EQ(fake_->Level(uid, "alice@example.com"), 2);
  // A lower role granted later never lowers a higher level.
  ASSERT_TRUE(plugin_->GrantAccess(config_, view).ok());
  EXPECT_EQ(fake_->Level(uid, "alice@example.com"), 2);
  // Revoking view leaves edit; revoking edit removes the item only.
  ASSERT_TRUE(plugin_->RevokeAccess(config_, view).ok());
  EXPECT_EQ(fake_->Level(uid, "alice@example.com"), 2);
  auto listed = plugin_->ListAccess(config_, {edit.resource});
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->size(), 2u);  // alice (edit) and bob (admin)
  ASSERT_TRUE(plugin_->RevokeAccess(config_, edit).ok());
  EXPECT_EQ(fake_->Level(uid, "alice@example.com"), 0);
  EXPECT_EQ(fake_->Level(uid, "bob@example.com"), 4);
  EXPECT_EQ(fake_->Items(uid).size(), 3u);
  EXPECT_TRUE(plugin_->RevokeAccess(config_, edit).ok());  // already gone
  // Folders too; dashboards inherit, and inherited items are never copied.
  auto folder = Req(k8s_, "view", "bob@example.com");
  ASSERT_TRUE(plugin_->GrantAccess(config_, folder).ok());
  EXPECT_EQ(fake_->Level(k8s_, "bob@example.com"), 1);
  ASSERT_TRUE(plugin_->GrantAccess(config_, Req(std::to_string(cpu_), "admin")).ok());
  EXPECT_EQ(fake_->Items(fake_->DashboardUid(cpu_)).size(), 1u);
}

TEST_F(GrafanaProviderTest, AccountsAndFailures) {
  auto ghost = Req(std::to_string(home_), "view", "ghost@example.com");
  auto st = plugin_->GrantAccess(config_, ghost);
  EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
  EXPECT_NE(st.message().find("\"ghost@example.com\""), std::string::npos);
  EXPECT_TRUE(plugin_->RevokeAccess(config_, ghost).ok());
  EXPECT_EQ(plugin_->ValidateAccount(config_, "user", "ghost@example.com")
                .message()
                .rfind("account_id: ", 0),
            0u);
  EXPECT_TRUE(plugin_->ValidateAccount(config_, "user", "ALICE@example.com").ok());
  // Accounts are emails only (review F-L6): a login names no account.
  EXPECT_TRUE(absl::IsInvalidArgument(plugin_->ValidateAccount(config_, "user", "alice")));
  auto req = Req(std::to_string(home_), "view");
  fake_->server().Inject({"POST", "/api/dashboards", 500});
  EXPECT_TRUE(absl::IsUnavailable(plugin_->GrantAccess(config_, req)));
  fake_->server().Inject({"GET", "/api/dashboards", 403});
  EXPECT_TRUE(absl::IsFailedPrecondition(plugin_->GrantAccess(config_, req)));
  fake_->server().Inject({"GET", "/api/org/users", 0, nullptr, absl::Seconds(3)});
  EXPECT_TRUE(absl::IsDeadlineExceeded(plugin_->GrantAccess(config_, req)));
  fake_->server().Inject({"GET", "/api/dashboards", 404});
  EXPECT_TRUE(absl::IsFailedPrecondition(plugin_->GrantAccess(config_, req)));
  fake_->server().Inject({"GET", "/api/dashboards", 404});
  EXPECT_TRUE(plugin_->RevokeAccess(config_, req).ok());
}

// Review F-L6: a user whose login is someone else's email, listed first
// (page 1 of the user search, the owner of the email on page 2), gets
// nothing: accounts match by email only, across every page.
TEST_F(GrafanaProviderTest, ALoginEqualToAnothersEmailNeverMatches) {
  fake_->AddUser("mallory@example.com", "carol@example.com");
  for (int i = 0; i < 100; ++i) {
    fake_->AddUser("filler" + std::to_string(i) + "@example.com",
                   "carol@example.com-" + std::to_string(i));
  }
  fake_->AddUser("carol@example.com", "carol");
  std::string uid = fake_->DashboardUid(home_);
  ASSERT_TRUE(plugin_->ValidateAccount(config_, "user", "carol@example.com").ok());
  auto st = plugin_->GrantAccess(config_, Req(std::to_string(home_), "view", "carol@example.com"));
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(fake_->Level(uid, "carol@example.com"), 1);
  EXPECT_EQ(fake_->Level(uid, "mallory@example.com"), 0) << fake_->Items(uid);
  ASSERT_TRUE(
      plugin_->RevokeAccess(config_, Req(std::to_string(home_), "view", "carol@example.com")).ok());
  EXPECT_EQ(fake_->Level(uid, "carol@example.com"), 0);
}

// Review F-L6: two users whose emails differ only in case are refused by
// name rather than one of them picked.
TEST_F(GrafanaProviderTest, AnAmbiguousEmailIsRefused) {
  fake_->AddUser("Dana@example.com", "dana1");
  fake_->AddUser("dana@example.com", "dana2");
  auto v = plugin_->ValidateAccount(config_, "user", "dana@example.com");
  EXPECT_TRUE(absl::IsInvalidArgument(v)) << v;
  EXPECT_NE(v.message().find("account_id: "), std::string::npos) << v;
  auto st = plugin_->GrantAccess(config_, Req(std::to_string(home_), "view", "dana@example.com"));
  EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
  EXPECT_NE(st.message().find("2 Grafana users"), std::string::npos) << st;
  EXPECT_EQ(fake_->Level(fake_->DashboardUid(home_), "dana@example.com"), 0);
  EXPECT_EQ(fake_->Level(fake_->DashboardUid(home_), "Dana@example.com"), 0);
}

// Concurrent grants on one dashboard through one plugin (one server):
// merges queue per item, so every user ends up listed. (Two replicas
// granting on one dashboard at once can still overwrite each other:
// Grafana's API has no revision; the read-back only catches an overwrite
// that lands before it.)
TEST_F(GrafanaProviderTest, ConcurrentGrantsLoseNothing) {
  std::vector<std::string> users;
  for (int i = 0; i < 10; ++i) {
    users.push_back("u" + std::to_string(i) + "@example.com");
    fake_->AddUser(users.back());
  }
  auto resource = Find(std::to_string(home_));
  std::vector<std::thread> threads;
  std::vector<absl::Status> results(users.size());
  for (size_t i = 0; i < users.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = plugin_->GrantAccess(config_, {users[i], "user", resource, "viewer", {"view"}});
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& st : results) EXPECT_TRUE(st.ok()) << st;
  for (const auto& u : users) EXPECT_EQ(fake_->Level(fake_->DashboardUid(home_), u), 1) << u;
}

}  // namespace
}  // namespace sluice::access
