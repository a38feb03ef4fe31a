// The metabase, grafana and tableau providers end to end: Guardian's
// documented configs load through sluicectl against stateful fakes of the
// vendors' APIs; through the gateway, resources appear, an approved appeal
// puts the permission in the fake, and revocation or expiry takes it away;
// concurrent grants on one resource all land; a session ended mid-run is
// renewed.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <mutex>
#include <regex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/appeal_fixture.h"
#include "integration/process.h"
#include "server/access/providers/grafana/testing/fake_grafana.h"
#include "server/access/providers/metabase/testing/fake_metabase.h"
#include "server/access/providers/tableau/testing/fake_tableau.h"

namespace sluice::integration {
namespace {

using access::testing::FakeGrafana;
using access::testing::FakeMetabase;
using access::testing::FakeTableau;
using nlohmann::json;

constexpr char kApprover[] = "approver@example.com";

class BiProvidersTest : public AppealTest {
 protected:
  static void SetUpTestSuite() {
    AppealTest::SetUpTestSuite();
    // The credentials of Guardian's documented examples (docs/providers/).
    metabase_ = FakeMetabase::Start("administrator@email.com", "password123").release();
    grafana_ = FakeGrafana::Start("admin@localhost", "password", "unused-token").release();
    tableau_ = FakeTableau::Start("test@email.com", "password@123", "guardiantestsite").release();
    ASSERT_TRUE(metabase_ && grafana_ && tableau_);
    sales_db_ = metabase_->AddDatabase("sales", {"orders"});
    metabase_->AddCollection("Finance");
    std::string folder = grafana_->AddFolder("Ops");
    dashboard_ = grafana_->AddDashboard("CPU", folder);
    std::string owner = tableau_->AddUser("owner@example.com", "Creator");
    std::string project = tableau_->AddProject("Sales");
    workbook_ = tableau_->AddItem("workbooks", "Revenue", project, owner);
    tableau_->AddItem("flows", "Nightly", project, owner);
    for (int i = 0; i < 6; ++i) {
      std::string u = absl::StrCat("user", i, "@example.com");
      metabase_->AddUser(u);
      grafana_->AddUser(u);
      tableau_->AddUser(u);
    }
    for (const char* id : {"policy_id", "policy_x", "policy_1", "policy_2"}) {
      json policy = {
          {"id", id},
          {"steps", {{{"name", "approver"}, {"strategy", "manual"}, {"approvers", {kApprover}}}}},
          {"appeal", {{"allow_permanent_access", true}, {"allow_on_behalf", true}}}};
      auto r = Call("POST", "/policies", policy);
      ASSERT_EQ(r.status, 200) << r.body;
    }
    for (auto [type, url] : {std::pair<std::string, std::string>{"metabase", metabase_->url()},
                             {"grafana", grafana_->url()},
                             {"tableau", tableau_->url()}}) {
      LoadGuardianExample(type, url);
    }
  }
  static void TearDownTestSuite() {
    AppealTest::TearDownTestSuite();
    delete metabase_;
    delete grafana_;
    delete tableau_;
  }

  // docs/providers/<type>.yaml with only credentials.host replaced, created
  // through sluicectl (gRPC, YAML as written).
  static void LoadGuardianExample(const std::string& type, const std::string& host) {
    std::ifstream in(Runfile("docs/providers/" + type + ".yaml"));
    std::stringstream text;
    text << in.rdbuf();
    std::string yaml =
        std::regex_replace(text.str(), std::regex("  host: [^\\n]*"), "  host: " + host,
                           std::regex_constants::format_first_only);
    std::string dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
    std::string path = dir + "/" + type + ".yaml";
    std::ofstream(path) << yaml;
    auto p = Process::Start({Runfile("cli/sluicectl"), "--host", stack_->grpc_target(), "--email",
                             "cli@example.com", "--json", "provider", "create", "-f", path},
                            stack_->ClientEnv());
    ASSERT_TRUE(p.ok()) << p.status();
    int code = (*p)->Wait(absl::Seconds(60));
    ASSERT_EQ(code, 0) << type << ": " << (*p)->Output();
  }

  // The id of the resource `urn` of provider `provider_urn`.
  static std::string ResourceId(const std::string& provider_urn, const std::string& urn) {
    auto r = Call("GET", "/resources?size=1000&provider_urn=" + provider_urn);
    json body = r.Json();
    for (const auto& res : body["resources"]) {
      if (res["urn"] == urn) return res["id"];
    }
    ADD_FAILURE() << "no resource " << urn << " in " << r.body;
    return "";
  }

  // Appeals `role` on `rid` for `account` and has the approver approve it;
  // returns the appeal id (its grant active).
  static std::string Grant(const std::string& rid, const std::string& role,
                           const std::string& account, const std::string& duration = "") {
    auto a = Appeal(rid, role, duration, kAlice, account);
    EXPECT_EQ(a.status, 200) << a.body;
    json body = a.Json();
    if (a.status != 200) return "";
    std::string id = body["appeals"][0].value("id", "");
    json done = Act(id, "approver", "approve", kApprover);
    EXPECT_EQ(done["appeal"]["status"], "approved") << done.dump();
    return id;
  }

  static bool WaitFor(const std::function<bool()>& cond) {
    for (absl::Time end = absl::Now() + absl::Seconds(15); absl::Now() < end;) {
      if (cond()) return true;
      absl::SleepFor(absl::Milliseconds(100));
    }
    return cond();
  }

  static inline FakeMetabase* metabase_ = nullptr;
  static inline FakeGrafana* grafana_ = nullptr;
  static inline FakeTableau* tableau_ = nullptr;
  static inline int sales_db_ = 0, dashboard_ = 0;
  static inline std::string workbook_;
};

TEST_F(BiProvidersTest, GuardianExamplesLoadAndTheirResourcesAppear) {
  for (const char* urn : {"my-metabase", "1", "691acb66-27ef-4b4f-9222-f07052e6ffd0"}) {
    auto r = Call("GET", std::string("/resources?provider_urn=") + urn);
    EXPECT_GE(r.Json().value("total", 0), 1) << urn << ": " << r.body;
  }
  auto providers = Call("GET", "/providers?size=100").Json()["providers"];
  for (const auto& p : providers) {
    EXPECT_EQ(p["config"]["credentials"]["password"], "*****") << p.dump();
    EXPECT_EQ(p["config"]["allowed_account_types"], json::array({"user"}));
  }
  // The tableau example's permission objects come back as written.
  for (const auto& p : providers) {
    if (p["type"] != "tableau") continue;
    EXPECT_EQ(p["config"]["resources"][0]["roles"][0]["permissions"][4],
              (json{{"name", "Viewer"}, {"type", "site_role"}}));
  }
}

TEST_F(BiProvidersTest, MetabaseAppealApprovalRevokeAndExpiry) {
  std::string rid = ResourceId("my-metabase", absl::StrCat("database:", sales_db_));
  std::string group = absl::StrCat("_guardian_database_", sales_db_, "_schemas:all");
  std::string id = Grant(rid, "read", "user0@example.com");
  EXPECT_TRUE(metabase_->Members(group).count("user0@example.com"));
  auto r = Call("PUT", "/appeals/" + id + "/revoke", json{{"reason", "done"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(metabase_->Members(group).count("user0@example.com"));
  // A session ended by Metabase mid-run is renewed on the 401.
  int sign_ins = metabase_->sign_ins();
  metabase_->ExpireSessions();
  Grant(rid, "read", "user1@example.com", "2s");
  EXPECT_TRUE(metabase_->Members(group).count("user1@example.com"));
  EXPECT_EQ(metabase_->sign_ins(), sign_ins + 1);
  EXPECT_TRUE(WaitFor([&] { return !metabase_->Members(group).count("user1@example.com"); }))
      << "the expired grant is still in Metabase";
  ExpectCode(Appeal(rid, "read", "", kAlice, "ghost@example.com"), 400, 3,
             "account_id: \"ghost@example.com\"");
}

TEST_F(BiProvidersTest, GrafanaAppealApprovalRevokeAndExpiry) {
  std::string rid = ResourceId("1", std::to_string(dashboard_));
  std::string uid = grafana_->DashboardUid(dashboard_);
  std::string id = Grant(rid, "editor", "user0@example.com");
  EXPECT_EQ(grafana_->Level(uid, "user0@example.com"), 2);
  ASSERT_EQ(Call("PUT", "/appeals/" + id + "/revoke", json{{"reason", "done"}}).status, 200);
  EXPECT_EQ(grafana_->Level(uid, "user0@example.com"), 0);
  Grant(rid, "viewer", "user1@example.com", "2s");
  EXPECT_EQ(grafana_->Level(uid, "user1@example.com"), 1);
  EXPECT_TRUE(WaitFor([&] { return grafana_->Level(uid, "user1@example.com") == 0; }));
}

TEST_F(BiProvidersTest, TableauAppealApprovalRevokeAndExpiry) {
  std::string urn = "691acb66-27ef-4b4f-9222-f07052e6ffd0";
  std::string rid = ResourceId(urn, workbook_);
  std::string id = Grant(rid, "read", "user0@example.com");
  EXPECT_TRUE(
      tableau_->Capabilities("workbooks", workbook_, "user0@example.com").count("Read:Allow"));
  EXPECT_EQ(tableau_->SiteRole("user0@example.com"), "Viewer");
  ASSERT_EQ(Call("PUT", "/appeals/" + id + "/revoke", json{{"reason", "done"}}).status, 200);
  EXPECT_TRUE(tableau_->Capabilities("workbooks", workbook_, "user0@example.com").empty());
  // Review F-M3: the site role the grant raised goes back down (the role
  // from before is kept in the grant's provider_state, in PostgreSQL).
  EXPECT_EQ(tableau_->SiteRole("user0@example.com"), "Unlicensed");
  int sign_ins = tableau_->sign_ins();
  tableau_->ExpireSessions();
  Grant(rid, "export", "user1@example.com", "2s");
  EXPECT_EQ(tableau_->sign_ins(), sign_ins + 1);
  EXPECT_TRUE(tableau_->Capabilities("workbooks", workbook_, "user1@example.com")
                  .count("ExportData:Allow"));
  EXPECT_TRUE(WaitFor(
      [&] { return tableau_->Capabilities("workbooks", workbook_, "user1@example.com").empty(); }));
}

// Six approvals on one resource of each type at once: every grant lands.
TEST_F(BiProvidersTest, ConcurrentGrantsOnOneResourceAllLand) {
  struct Target {
    std::string rid, role;
    std::function<bool(const std::string&)> has;
  };
  std::string mb_group = absl::StrCat("_guardian_database_", sales_db_, "_native:write");
  std::string uid = grafana_->DashboardUid(dashboard_);
  std::vector<Target> targets = {
      {ResourceId("my-metabase", absl::StrCat("database:", sales_db_)), "query",
       [&](const std::string& u) { return metabase_->Members(mb_group).count(u) > 0; }},
      {ResourceId("1", std::to_string(dashboard_)), "admin",
       [&](const std::string& u) { return grafana_->Level(uid, u) == 4; }},
      {ResourceId("691acb66-27ef-4b4f-9222-f07052e6ffd0", workbook_), "other",
       [&](const std::string& u) {
         return tableau_->Capabilities("workbooks", workbook_, u).count("WebAuthoring:Allow") > 0;
       }}};
  for (const auto& t : targets) {
    std::vector<std::string> ids, users;
    for (int i = 0; i < 6; ++i) {
      users.push_back(absl::StrCat("user", i, "@example.com"));
      auto a = Appeal(t.rid, t.role, "", kAlice, users.back());
      ASSERT_EQ(a.status, 200) << a.body;
      ids.push_back(a.Json()["appeals"][0]["id"]);
    }
    std::vector<std::thread> threads;
    std::mutex mu;
    std::vector<std::string> failures;
    for (const auto& id : ids) {
      threads.emplace_back([&, id] {
        auto r = Call("POST", "/appeals/" + id + "/approvals/approver", json{{"action", "approve"}},
                      kApprover);
        if (r.status != 200) {
          std::lock_guard<std::mutex> lock(mu);
          failures.push_back(r.body);
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_TRUE(failures.empty()) << t.role << ": " << failures[0];
    for (const auto& u : users) EXPECT_TRUE(t.has(u)) << t.role << " lost for " << u;
  }
}

}  // namespace
}  // namespace sluice::integration
