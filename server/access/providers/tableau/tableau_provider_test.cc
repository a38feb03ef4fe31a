// The tableau plugin against the stateful fake of Tableau's REST API,
// through the real libcurl HttpClient.
#include "server/access/providers/tableau/tableau_provider.h"

#include <gtest/gtest.h>

#include <thread>

#include "server/access/core/json.h"
#include "server/access/providers/tableau/testing/fake_tableau.h"

namespace sluice::access {
namespace {

using nlohmann::json;
using testing::FakeTableau;

class TableauProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ = FakeTableau::Start("admin@example.com", "pw", "guardiantestsite");
    ASSERT_NE(fake_, nullptr);
    owner_ = fake_->AddUser("owner@example.com", "Creator");
    fake_->AddUser("alice@example.com");
    std::string top = fake_->AddProject("Sales");
    project_ = fake_->AddProject("EMEA", top);
    workbook_ = fake_->AddItem("workbooks", "Revenue", project_, owner_);
    view_ = fake_->AddItem("views", "Map", project_, owner_, {{"workbook", {{"id", workbook_}}}});
    fake_->AddItem("datasources", "Orders", project_, owner_);
    flow_ = fake_->AddItem("flows", "Nightly", project_, owner_);
    fake_->AddItem("metrics", "ARR", project_, owner_, {{"underlyingView", {{"id", view_}}}});
    rest::CallLimits limits;
    limits.timeout = absl::Seconds(2);
    plugin_ = NewTableauProvider(http_.get(), limits);
    // Guardian's documented config (docs/providers/tableau.md), abridged
    // roles, plus the other three types.
    ASSERT_TRUE(JsonStringToProto(R"({"type": "tableau", "urn": "691acb66",
      "credentials": {"host": ")" + fake_->url() +
                                      R"(", "username": "admin@example.com",
                      "password": "pw", "content_url": "guardiantestsite"},
      "resources": [
        {"type": "workbook", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "read", "permissions": [{"name": "Read:Allow"}, {"name": "ViewComments:Allow"},
            {"name": "ViewUnderlyingData:Allow"}, {"name": "Filter:Allow"},
            {"name": "Viewer", "type": "site_role"}]},
          {"id": "admin", "permissions": [{"name": "ChangeHierarchy:Allow"},
            {"name": "ServerAdministrator", "type": "site_role"}]}]},
        {"type": "flow", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "other", "permissions": [{"name": "Execute:Allow"},
            {"name": "ExplorerCanPublish", "type": "site_role"}]}]},
        {"type": "view", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "read", "permissions": [{"name": "Read:Allow"}]}]},
        {"type": "datasource", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "connect", "permissions": [{"name": "Connect:Allow"}]}]},
        {"type": "metric", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "read", "permissions": [{"name": "Read:Allow"}]}]}]})",
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
  // The appeal's permissions of `role` on `type`, as the core makes them.
  std::vector<std::string> Perms(int resource_index, int role_index) {
    std::vector<std::string> out;
    for (const auto& p : config_.resources(resource_index).roles(role_index).permissions()) {
      out.push_back(PermissionString(p));
    }
    return out;
  }

  std::unique_ptr<HttpClient> http_ = NewCurlHttpClient();
  std::unique_ptr<FakeTableau> fake_;
  std::unique_ptr<ProviderClient> plugin_;
  v1beta1::ProviderConfig config_;
  std::string owner_, project_, workbook_, view_, flow_;
};

TEST_F(TableauProviderTest, ValidatesConfigWithARealSignIn) {
  ASSERT_TRUE(plugin_->ValidateConfig(config_).ok()) << plugin_->ValidateConfig(config_);
  EXPECT_EQ(fake_->sign_ins(), 1);
  for (const char* key : {"password", "content_url"}) {
    auto bad = config_;
    (*bad.mutable_credentials()->mutable_fields())[key].set_string_value("wrong");
    auto st = plugin_->ValidateConfig(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
    EXPECT_NE(st.message().find(std::string("credentials.") + key), std::string::npos) << st;
  }
  auto bad = config_;
  bad.mutable_credentials()->mutable_fields()->erase("content_url");
  EXPECT_NE(plugin_->ValidateConfig(bad).message().find("credentials.content_url: required"),
            std::string::npos);
  bad = config_;
  (*bad.mutable_resources(0)
        ->mutable_roles(0)
        ->mutable_permissions(0)
        ->mutable_struct_value()
        ->mutable_fields())["name"]
      .set_string_value("Execute:Allow");  // not a workbook capability
  EXPECT_NE(plugin_->ValidateConfig(bad).message().find("resources[0].roles[0].permissions[0]"),
            std::string::npos);
}

TEST_F(TableauProviderTest, DiscoversEveryTypePageByPage) {
  for (int i = 0; i < 1005; ++i)
    fake_->AddItem("workbooks", "wb" + std::to_string(i), project_, owner_);
  auto all = plugin_->GetResources(config_);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->size(), 1006u + 4u);
  std::map<std::string, v1beta1::Resource> by_urn;
  for (const auto& r : *all) by_urn[r.urn()] = r;
  json wb = StructToJson(by_urn[workbook_].details());
  EXPECT_EQ(wb["project_path"], "Sales/EMEA");
  EXPECT_EQ(wb["owner_name"], "owner@example.com");
  EXPECT_EQ(wb["tags"], json::array({"sales"}));
  EXPECT_EQ(StructToJson(by_urn[view_].details())["workbook_id"], workbook_);
  EXPECT_EQ(by_urn[flow_].type(), "flow");
}

TEST_F(TableauProviderTest, GrantChecksSiteRoleThenAddsCapabilities) {
  AccessRequest read{"alice@example.com", "user", Find(workbook_), "read", Perms(0, 0)};
  EXPECT_EQ(read.permissions.back(), "Viewer@site_role");
  ASSERT_TRUE(plugin_->GrantAccess(config_, read).ok());
  EXPECT_EQ(fake_->SiteRole("alice@example.com"), "Viewer");
  EXPECT_EQ(fake_->Capabilities("workbooks", workbook_, "alice@example.com"),
            (std::set<std::string>{"Read:Allow", "ViewComments:Allow", "ViewUnderlyingData:Allow",
                                   "Filter:Allow"}));
  ASSERT_TRUE(plugin_->GrantAccess(config_, read).ok());  // idempotent
  // A lower site role never lowers a higher one.
  AccessRequest owner_read = read;
  owner_read.account_id = "owner@example.com";
  ASSERT_TRUE(plugin_->GrantAccess(config_, owner_read).ok());
  EXPECT_EQ(fake_->SiteRole("owner@example.com"), "Creator");
  auto listed = plugin_->ListAccess(config_, {read.resource});
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->size(), 2u);
  // Revoke removes the capabilities; without a recorded earlier role (no
  // provider state) the site role stays.
  ASSERT_TRUE(plugin_->RevokeAccess(config_, read).ok());
  EXPECT_TRUE(fake_->Capabilities("workbooks", workbook_, "alice@example.com").empty());
  EXPECT_EQ(fake_->SiteRole("alice@example.com"), "Viewer");
  EXPECT_TRUE(plugin_->RevokeAccess(config_, read).ok());  // already gone
  // An explicit Deny is replaced by the approved Allow.
  AccessRequest deny = read;
  deny.permissions = {"Read:Deny"};
  ASSERT_TRUE(plugin_->GrantAccess(config_, deny).ok());
  ASSERT_TRUE(plugin_->GrantAccess(config_, read).ok());
  EXPECT_EQ(fake_->Capabilities("workbooks", workbook_, "alice@example.com").count("Read:Deny"),
            0u);
  // Flows too.
  AccessRequest exec{"alice@example.com", "user", Find(flow_), "other", Perms(1, 0)};
  ASSERT_TRUE(plugin_->GrantAccess(config_, exec).ok());
  EXPECT_EQ(fake_->SiteRole("alice@example.com"), "ExplorerCanPublish");
  EXPECT_EQ(fake_->Capabilities("flows", flow_, "alice@example.com"),
            std::set<std::string>{"Execute:Allow"});
}

// Review F-M3: a site role raised by a grant goes back down when the last
// grant that needs it ends; the role from before the raise is kept in the
// grant's provider state.
TEST_F(TableauProviderTest, RevokeLowersTheSiteRoleItRaised) {
  fake_->AddUser("bob@example.com", "Viewer");
  AccessRequest exec{"bob@example.com", "user", Find(flow_), "other", Perms(1, 0)};
  auto state = plugin_->GrantAccessWithState(config_, exec);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(json::parse(*state), json({{"site_role_before", "Viewer"}}));
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "ExplorerCanPublish");
  exec.provider_state = *state;
  ASSERT_TRUE(plugin_->RevokeAccess(config_, exec).ok());
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "Viewer");
  EXPECT_TRUE(fake_->Capabilities("flows", flow_, "bob@example.com").empty());
  ASSERT_TRUE(plugin_->RevokeAccess(config_, exec).ok());  // already gone
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "Viewer");
}

// Review F-M3: while another active grant needs an equal or higher site
// role, the role stays; the role from before the first raise is carried to
// later grants, and the last revoke restores it.
TEST_F(TableauProviderTest, SiteRoleStaysWhileAnotherGrantNeedsIt) {
  fake_->AddUser("bob@example.com", "Viewer");
  AccessRequest exec{"bob@example.com", "user", Find(flow_), "other", Perms(1, 0)};
  auto s1 = plugin_->GrantAccessWithState(config_, exec);
  ASSERT_TRUE(s1.ok()) << s1.status();
  exec.provider_state = *s1;
  AccessRequest admin{"bob@example.com", "user", Find(workbook_), "admin", Perms(0, 1)};
  admin.other_grants = {{"flow", flow_, exec.permissions, *s1}};
  auto s2 = plugin_->GrantAccessWithState(config_, admin);
  ASSERT_TRUE(s2.ok()) << s2.status();
  EXPECT_EQ(json::parse(*s2), json({{"site_role_before", "Viewer"}}))
      << "the role before Sluice's first raise, not ExplorerCanPublish";
  admin.provider_state = *s2;
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "ServerAdministrator");

  // The lower grant ends first: the higher one still needs its role.
  exec.other_grants = {{"workbook", workbook_, admin.permissions, *s2}};
  ASSERT_TRUE(plugin_->RevokeAccess(config_, exec).ok());
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "ServerAdministrator");
  // The last one ends: back to the role from before.
  admin.other_grants.clear();
  ASSERT_TRUE(plugin_->RevokeAccess(config_, admin).ok());
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "Viewer");

  // The higher grant ends first: down to what the remaining grant needs.
  s1 = plugin_->GrantAccessWithState(config_, exec);
  ASSERT_TRUE(s1.ok()) << s1.status();
  admin.other_grants = {{"flow", flow_, exec.permissions, *s1}};
  s2 = plugin_->GrantAccessWithState(config_, admin);
  ASSERT_TRUE(s2.ok()) << s2.status();
  admin.provider_state = *s2;
  exec.provider_state = *s1;
  ASSERT_TRUE(plugin_->RevokeAccess(config_, admin).ok());
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "ExplorerCanPublish");
  exec.other_grants.clear();
  ASSERT_TRUE(plugin_->RevokeAccess(config_, exec).ok());
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "Viewer");
}

// A site role someone raised by hand above what Sluice's grants need stays
// when the grant ends.
TEST_F(TableauProviderTest, SiteRoleRaisedByHandStays) {
  fake_->AddUser("bob@example.com", "Viewer");
  AccessRequest exec{"bob@example.com", "user", Find(flow_), "other", Perms(1, 0)};
  auto state = plugin_->GrantAccessWithState(config_, exec);
  ASSERT_TRUE(state.ok()) << state.status();
  exec.provider_state = *state;
  fake_->SetSiteRole("bob@example.com", "SiteAdministratorCreator");
  ASSERT_TRUE(plugin_->RevokeAccess(config_, exec).ok());
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "SiteAdministratorCreator");
}

// A grant made before Sluice recorded the earlier role (no provider state)
// leaves the site role as it is; a user who already had the role keeps it.
TEST_F(TableauProviderTest, SiteRoleWithoutARecordedRoleStays) {
  fake_->AddUser("bob@example.com", "Viewer");
  AccessRequest exec{"bob@example.com", "user", Find(flow_), "other", Perms(1, 0)};
  ASSERT_TRUE(plugin_->GrantAccess(config_, exec).ok());
  ASSERT_TRUE(plugin_->RevokeAccess(config_, exec).ok());
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "ExplorerCanPublish");
  auto state = plugin_->GrantAccessWithState(config_, exec);
  ASSERT_TRUE(state.ok()) << state.status();
  exec.provider_state = *state;
  ASSERT_TRUE(plugin_->RevokeAccess(config_, exec).ok());
  EXPECT_EQ(fake_->SiteRole("bob@example.com"), "ExplorerCanPublish");
}

TEST_F(TableauProviderTest, AccountsSessionsAndFailures) {
  AccessRequest read{"ghost@example.com", "user", Find(workbook_), "read", Perms(0, 0)};
  auto st = plugin_->GrantAccess(config_, read);
  EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
  EXPECT_NE(st.message().find("\"ghost@example.com\""), std::string::npos);
  EXPECT_TRUE(plugin_->RevokeAccess(config_, read).ok());
  EXPECT_EQ(plugin_->ValidateAccount(config_, "user", "ghost@example.com")
                .message()
                .rfind("account_id: ", 0),
            0u);
  EXPECT_TRUE(plugin_->ValidateAccount(config_, "user", "alice@example.com").ok());
  read.account_id = "alice@example.com";
  int before = fake_->sign_ins();
  fake_->ExpireSessions();
  ASSERT_TRUE(plugin_->GrantAccess(config_, read).ok());
  EXPECT_EQ(fake_->sign_ins(), before + 1);
  fake_->server().Inject({"PUT", "/api/3.12/sites/site-1/workbooks", 500});
  AccessRequest more = read;
  more.permissions = {"ExportData:Allow"};
  EXPECT_TRUE(absl::IsUnavailable(plugin_->GrantAccess(config_, more)));
  fake_->server().Inject({"GET", "/api/3.12/sites/site-1/workbooks", 404});
  EXPECT_TRUE(absl::IsFailedPrecondition(plugin_->GrantAccess(config_, more)));
  fake_->server().Inject({"GET", "/api/3.12/sites/site-1/users", 0, nullptr, absl::Seconds(3)});
  EXPECT_TRUE(absl::IsDeadlineExceeded(plugin_->GrantAccess(config_, more)));
  fake_->server().Inject({"", "/api/3.12/sites", 403});
  EXPECT_TRUE(absl::IsFailedPrecondition(plugin_->GrantAccess(config_, more)));
}

TEST_F(TableauProviderTest, ConcurrentGrantsLoseNothing) {
  std::vector<std::string> users;
  for (int i = 0; i < 10; ++i) {
    users.push_back("u" + std::to_string(i) + "@example.com");
    fake_->AddUser(users.back());
  }
  auto resource = Find(workbook_);
  std::vector<std::thread> threads;
  std::vector<absl::Status> results(users.size());
  for (size_t i = 0; i < users.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = plugin_->GrantAccess(config_, {users[i], "user", resource, "read", Perms(0, 0)});
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& st : results) EXPECT_TRUE(st.ok()) << st;
  for (const auto& u : users) {
    EXPECT_EQ(fake_->Capabilities("workbooks", workbook_, u).size(), 4u) << u;
    EXPECT_EQ(fake_->SiteRole(u), "Viewer");
  }
}

}  // namespace
}  // namespace sluice::access
