// The metabase plugin against the stateful fake of Metabase's REST API,
// through the real libcurl HttpClient.
#include "server/access/providers/metabase/metabase_provider.h"

#include <gtest/gtest.h>

#include <thread>

#include "server/access/core/json.h"
#include "server/access/providers/metabase/testing/fake_metabase.h"

namespace sluice::access {
namespace {

using nlohmann::json;
using testing::FakeMetabase;

constexpr char kAdmin[] = "admin@mb.example";
constexpr char kPassword[] = "s3cret";

class MetabaseProviderTest : public ::testing::TestWithParam<FakeMetabase::Shape> {
 protected:
  void SetUp() override {
    fake_ = FakeMetabase::Start(kAdmin, kPassword, GetParam());
    ASSERT_NE(fake_, nullptr);
    sales_ = fake_->AddDatabase("sales", {"orders", "customers"});
    hr_ = fake_->AddDatabase("hr", {"people"});
    finance_ = fake_->AddCollection("Finance");
    reports_ = fake_->AddCollection("Reports", finance_);
    alice_ = fake_->AddUser("alice@example.com");
    fake_->AddUser("bob@example.com");
    fake_->AddCollection("Alice's Personal Collection", 0, alice_);
    analysts_ = fake_->AddGroup("Analysts");
    rest::CallLimits limits;
    limits.timeout = absl::Seconds(2);
    plugin_ = NewMetabaseProvider(http_.get(), limits);
    // Guardian's documented config (docs/providers/metabase.md), with `user`.
    ASSERT_TRUE(JsonStringToProto(R"({"type": "metabase", "urn": "my-metabase",
      "credentials": {"host": ")" + fake_->url() +
                                      R"(", "user": "admin@mb.example",
                      "password": "s3cret"},
      "resources": [
        {"type": "database", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "read", "permissions": ["schemas:all"]},
          {"id": "query", "permissions": ["schemas:all", "native:write"]}]},
        {"type": "collection", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "viewer", "permissions": ["read"]}, {"id": "editor", "permissions": ["write"]}]},
        {"type": "table", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "viewer", "permissions": ["all"]}]},
        {"type": "group", "policy": {"id": "p", "version": 1}, "roles": [
          {"id": "member", "permissions": ["member"]}]}]})",
                                  &config_)
                    .ok());
  }

  v1beta1::Resource Find(const std::string& urn) {
    auto all = plugin_->GetResources(config_);
    EXPECT_TRUE(all.ok()) << all.status();
    for (const auto& r : *all) {
      if (r.urn() == urn) return r;
    }
    ADD_FAILURE() << "no resource " << urn;
    return {};
  }

  AccessRequest Req(const std::string& urn, std::vector<std::string> perms,
                    const std::string& account = "alice@example.com") {
    return {account, "user", Find(urn), "role", std::move(perms)};
  }

  std::unique_ptr<HttpClient> http_ = NewCurlHttpClient();
  std::unique_ptr<FakeMetabase> fake_;
  std::unique_ptr<ProviderClient> plugin_;
  v1beta1::ProviderConfig config_;
  int sales_ = 0, hr_ = 0, finance_ = 0, reports_ = 0, alice_ = 0, analysts_ = 0;
};

TEST_P(MetabaseProviderTest, ValidatesConfigWithARealSignIn) {
  ASSERT_TRUE(plugin_->ValidateConfig(config_).ok()) << plugin_->ValidateConfig(config_);
  EXPECT_EQ(fake_->sign_ins(), 1);
  auto bad = config_;
  (*bad.mutable_credentials()->mutable_fields())["password"].set_string_value("wrong");
  auto st = plugin_->ValidateConfig(bad);
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  EXPECT_NE(st.message().find("credentials.password"), std::string::npos) << st;
  bad = config_;
  bad.mutable_credentials()->mutable_fields()->erase("password");
  EXPECT_NE(plugin_->ValidateConfig(bad).message().find("credentials.password: required"),
            std::string::npos);
  bad = config_;
  (*bad.mutable_credentials()->mutable_fields())["host"].set_string_value("file:///etc/passwd");
  EXPECT_NE(plugin_->ValidateConfig(bad).message().find("credentials.host"), std::string::npos);
  bad = config_;
  (*bad.mutable_credentials()->mutable_fields())["host"].set_string_value("http://127.0.0.1:1");
  st = plugin_->ValidateConfig(bad);
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  EXPECT_NE(st.message().find("credentials.host"), std::string::npos) << st;
  bad = config_;
  bad.mutable_resources(1)->mutable_roles(0)->mutable_permissions(0)->set_string_value("admin");
  EXPECT_NE(plugin_->ValidateConfig(bad).message().find("resources[1].roles[0].permissions"),
            std::string::npos);
  bad = config_;
  bad.mutable_resources(0)->set_type("dashboard");
  EXPECT_NE(plugin_->ValidateConfig(bad).message().find("resources[0].type"), std::string::npos);
}

TEST_P(MetabaseProviderTest, DiscoversEveryResourceType) {
  auto all = plugin_->GetResources(config_);
  ASSERT_TRUE(all.ok()) << all.status();
  std::map<std::string, v1beta1::Resource> by_urn;
  for (const auto& r : *all) by_urn[r.urn()] = r;
  std::string orders = absl::StrCat("table:", sales_, ".", fake_->TableId(sales_, "orders"));
  for (const std::string& urn :
       {absl::StrCat("database:", sales_), absl::StrCat("database:", hr_), orders,
        absl::StrCat("collection:", finance_), absl::StrCat("collection:", reports_),
        absl::StrCat("group:", analysts_), std::string("group:1"), std::string("group:2")}) {
    EXPECT_TRUE(by_urn.count(urn)) << urn;
  }
  EXPECT_EQ(by_urn.size(), 10u);  // no personal collection, no root
  EXPECT_EQ(by_urn[absl::StrCat("collection:", reports_)].name(), "Finance/Reports");
  json reports = StructToJson(by_urn[absl::StrCat("collection:", reports_)].details());
  EXPECT_EQ(reports["parent_id"], std::to_string(finance_));
  json table = StructToJson(by_urn[orders].details());
  EXPECT_EQ(table["database_id"], sales_);
  EXPECT_EQ(table["schema"], "public");
  json db = StructToJson(by_urn[absl::StrCat("database:", sales_)].details());
  ASSERT_EQ(db["groups"].size(), 1u) << db.dump();  // Administrators
  EXPECT_EQ(db["groups"][0]["name"], "Administrators");
}

TEST_P(MetabaseProviderTest, GrantsAndRevokesLikeGuardian) {
  std::string db_group = absl::StrCat("_guardian_database_", sales_, "_schemas:all");
  auto req = Req(absl::StrCat("database:", sales_), {"schemas:all"});
  ASSERT_TRUE(plugin_->GrantAccess(config_, req).ok());
  EXPECT_EQ(fake_->Members(db_group), std::set<std::string>{"alice@example.com"});
  EXPECT_EQ(fake_->DataEntry(db_group, sales_), (json{{"schemas", "all"}}));
  ASSERT_TRUE(plugin_->GrantAccess(config_, req).ok());  // idempotent
  EXPECT_EQ(fake_->Members(db_group).size(), 1u);
  // Guardian groups never show up as resources.
  auto resources = plugin_->GetResources(config_);
  ASSERT_TRUE(resources.ok());
  for (const auto& r : *resources) {
    EXPECT_EQ(r.name().find("_guardian_"), std::string::npos) << r.name();
  }
  auto listed = plugin_->ListAccess(config_, {req.resource});
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].account_id, "alice@example.com");
  EXPECT_EQ((*listed)[0].permissions, std::vector<std::string>{"schemas:all"});
  ASSERT_TRUE(plugin_->RevokeAccess(config_, req).ok());
  EXPECT_TRUE(fake_->Members(db_group).empty());
  EXPECT_TRUE(plugin_->RevokeAccess(config_, req).ok());  // already gone
  EXPECT_TRUE(
      plugin_->RevokeAccess(config_, Req(req.resource.urn(), {"schemas:all"}, "nobody@example.com"))
          .ok());

  auto sql = Req(absl::StrCat("database:", hr_), {"schemas:all", "native:write"});
  ASSERT_TRUE(plugin_->GrantAccess(config_, sql).ok());
  EXPECT_EQ(fake_->DataEntry(absl::StrCat("_guardian_database_", hr_, "_native:write"), hr_),
            (json{{"native", "write"}, {"schemas", "all"}}));

  int orders = fake_->TableId(sales_, "orders");
  auto table = Req(absl::StrCat("table:", sales_, ".", orders), {"all"});
  ASSERT_TRUE(plugin_->GrantAccess(config_, table).ok());
  std::string tg = absl::StrCat("_guardian_table_", sales_, "_", orders, "_all");
  EXPECT_EQ(fake_->DataEntry(tg, sales_),
            (json{{"schemas", {{"public", {{std::to_string(orders), "all"}}}}}}));
  EXPECT_EQ(fake_->Members(tg).size(), 1u);

  auto coll = Req(absl::StrCat("collection:", reports_), {"write"});
  ASSERT_TRUE(plugin_->GrantAccess(config_, coll).ok());
  std::string cg = absl::StrCat("_guardian_collection_", reports_, "_write");
  EXPECT_EQ(fake_->CollectionEntry(cg, reports_), "write");
  ASSERT_TRUE(plugin_->RevokeAccess(config_, coll).ok());
  EXPECT_TRUE(fake_->Members(cg).empty());

  auto group = Req(absl::StrCat("group:", analysts_), {"member"}, "bob@example.com");
  ASSERT_TRUE(plugin_->GrantAccess(config_, group).ok());
  EXPECT_EQ(fake_->Members("Analysts"), std::set<std::string>{"bob@example.com"});
  listed = plugin_->ListAccess(config_, {group.resource});
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].permissions, std::vector<std::string>{"member"});
  ASSERT_TRUE(plugin_->RevokeAccess(config_, group).ok());
  EXPECT_TRUE(fake_->Members("Analysts").empty());
}

TEST_P(MetabaseProviderTest, UnknownAccountsAreNamed) {
  auto req = Req(absl::StrCat("database:", sales_), {"schemas:all"}, "ghost@example.com");
  auto st = plugin_->GrantAccess(config_, req);
  EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
  EXPECT_NE(st.message().find("\"ghost@example.com\""), std::string::npos) << st;
  st = plugin_->ValidateAccount(config_, "user", "ghost@example.com");
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  EXPECT_EQ(st.message().rfind("account_id: \"ghost@example.com\"", 0), 0u) << st;
  EXPECT_TRUE(plugin_->ValidateAccount(config_, "user", "ALICE@example.com").ok());
}

// Concurrent grants on one database and on others: every graph write
// carries the revision, a 409 re-reads, and no membership or entry is lost.
TEST_P(MetabaseProviderTest, ConcurrentGrantsLoseNothing) {
  std::vector<std::string> users;
  for (int i = 0; i < 6; ++i) {
    users.push_back(absl::StrCat("user", i, "@example.com"));
    fake_->AddUser(users.back());
  }
  std::vector<int> dbs;
  for (int i = 0; i < 4; ++i) dbs.push_back(fake_->AddDatabase(absl::StrCat("db", i), {"t"}));
  fake_->server().Inject({"PUT", "/api/permissions/graph", 409, {{"message", "stale"}}, {}, 2});
  std::vector<AccessRequest> reqs;
  for (size_t i = 0; i < users.size(); ++i) {
    reqs.push_back(Req(absl::StrCat("database:", sales_), {"schemas:all"}, users[i]));
  }
  for (int db : dbs) reqs.push_back(Req(absl::StrCat("database:", db), {"native:write"}));
  std::vector<std::thread> threads;
  std::vector<absl::Status> results(reqs.size());
  for (size_t i = 0; i < reqs.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = plugin_->GrantAccess(config_, reqs[i]); });
  }
  for (auto& t : threads) t.join();
  for (const auto& st : results) EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ(fake_->Members(absl::StrCat("_guardian_database_", sales_, "_schemas:all")).size(),
            users.size());
  for (int db : dbs) {
    std::string g = absl::StrCat("_guardian_database_", db, "_native:write");
    EXPECT_EQ(fake_->DataEntry(g, db), (json{{"native", "write"}, {"schemas", "all"}})) << db;
    EXPECT_EQ(fake_->Members(g), std::set<std::string>{"alice@example.com"});
  }
}

TEST_P(MetabaseProviderTest, SessionsAreCachedRenewedAndFailuresMapped) {
  auto req = Req(absl::StrCat("database:", sales_), {"schemas:all"});
  ASSERT_TRUE(plugin_->GrantAccess(config_, req).ok());
  int before = fake_->sign_ins();
  EXPECT_EQ(before, 1);  // one sign-in for discovery and the grant
  fake_->ExpireSessions();
  ASSERT_TRUE(plugin_->RevokeAccess(config_, req).ok());
  EXPECT_EQ(fake_->sign_ins(), before + 1);
  EXPECT_TRUE(fake_->Members(absl::StrCat("_guardian_database_", sales_, "_schemas:all")).empty());

  fake_->server().Inject({"POST", "/api/permissions/membership", 503});
  EXPECT_TRUE(absl::IsUnavailable(plugin_->GrantAccess(config_, req)));
  fake_->server().Inject({"GET", "/api/user", 403});
  EXPECT_TRUE(absl::IsFailedPrecondition(plugin_->GrantAccess(config_, req)));
  fake_->server().Inject({"GET", "/api/permissions/group", 0, nullptr, absl::Seconds(3)});
  EXPECT_TRUE(absl::IsDeadlineExceeded(plugin_->GrantAccess(config_, req)));
  fake_->server().Inject({"PUT", "/api/permissions/graph", 409, nullptr, {}, 100});
  auto other = Req(absl::StrCat("database:", hr_), {"schemas:all"});
  EXPECT_TRUE(absl::IsAborted(plugin_->GrantAccess(config_, other)));
  fake_->server().ClearFaults();
  ASSERT_TRUE(plugin_->GrantAccess(config_, req).ok());
  fake_->server().Inject({"DELETE", "/api/permissions/membership", 404});
  EXPECT_TRUE(plugin_->RevokeAccess(config_, req).ok());  // gone already
}

INSTANTIATE_TEST_SUITE_P(Shapes, MetabaseProviderTest,
                         ::testing::Values(FakeMetabase::Shape::kCurrent,
                                           FakeMetabase::Shape::kLegacy));

}  // namespace
}  // namespace sluice::access
