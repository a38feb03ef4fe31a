// The postgres provider against a real database on the test server: catalog
// discovery, GRANT then REVOKE checked with has_table_privilege.
#include "server/access/providers/postgres/postgres_provider.h"

#include <random>
#include <set>

#include <gtest/gtest.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/db/testing/test_database.h"

namespace sluice::access {
namespace {

class PostgresProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = db::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    target_ = std::move(*db);
    role_ = "sluice_role_" + std::to_string(std::random_device()() % 1000000) + "-x";
    soci::session sql(soci::postgresql, target_->dsn());
    sql << "CREATE SCHEMA sales";
    sql << "CREATE TABLE sales.orders (id int)";
    sql << "CREATE TABLE public.\"odd \"\"name\" (id int)";
    sql << "CREATE ROLE \"" + role_ + "\"";
    config_.set_type("postgres");
    config_.set_urn("pg-test");
    config_.add_allowed_account_types("user");
    auto& creds = *config_.mutable_credentials()->mutable_fields();
    for (absl::string_view kv : absl::StrSplit(target_->dsn(), ' ', absl::SkipEmpty())) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
      creds[p.first].set_string_value(p.second);
    }
    for (const char* type : {"table", "database"}) {
      auto* rc = config_.add_resources();
      rc->set_type(type);
      rc->mutable_policy()->set_id("p");
      rc->mutable_policy()->set_version(1);
      auto* role = rc->add_roles();
      role->set_id("viewer");
      role->add_permissions()->set_string_value(std::string(type) == "table" ? "select"
                                                                           : "connect");
    }
  }
  void TearDown() override {
    if (!target_) return;
    try {
      soci::session sql(soci::postgresql, target_->dsn());
      sql << "DROP OWNED BY \"" + role_ + "\"";
      sql << "DROP ROLE IF EXISTS \"" + role_ + "\"";
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }

  bool HasPrivilege(const std::string& table, const std::string& priv) {
    soci::session sql(soci::postgresql, target_->dsn());
    int has = 0;
    sql << "SELECT has_table_privilege(:r, :t, :p)::int", soci::into(has), soci::use(role_),
        soci::use(table), soci::use(priv);
    return has != 0;
  }

  std::unique_ptr<db::TestDatabase> target_;
  std::string role_;
  v1beta1::ProviderConfig config_;
};

TEST_F(PostgresProviderTest, ValidatesConfig) {
  auto p = NewPostgresProvider();
  EXPECT_TRUE(p->ValidateConfig(config_).ok());
  auto bad = config_;
  bad.mutable_credentials()->mutable_fields()->erase("host");
  EXPECT_TRUE(absl::IsInvalidArgument(p->ValidateConfig(bad)));
  bad = config_;
  bad.mutable_resources(0)->mutable_roles(0)->add_permissions()->set_string_value(
      "SELECT; DROP TABLE x");
  auto st = p->ValidateConfig(bad);
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  bad = config_;
  bad.mutable_resources(0)->set_type("bucket");
  EXPECT_TRUE(absl::IsInvalidArgument(p->ValidateConfig(bad)));
}

TEST_F(PostgresProviderTest, DiscoversDatabasesAndTables) {
  auto p = NewPostgresProvider();
  auto resources = p->GetResources(config_);
  ASSERT_TRUE(resources.ok()) << resources.status();
  bool found_table = false, found_db = false;
  for (const auto& r : *resources) {
    if (r.type() == "table" && r.urn() == "sales.orders") {
      found_table = true;
      EXPECT_EQ(r.details().fields().at("schema").string_value(), "sales");
    }
    if (r.type() == "database" && r.urn() == target_->name()) found_db = true;
  }
  EXPECT_TRUE(found_table);
  EXPECT_TRUE(found_db);
}

// ListAccess reports explicit privileges on the requested resources only,
// spelled as the config's roles spell them, without the owner or PUBLIC.
TEST_F(PostgresProviderTest, ListsExplicitPrivilegesOfTheRequestedResources) {
  {
    soci::session sql(soci::postgresql, target_->dsn());
    sql << "GRANT SELECT, INSERT ON sales.orders TO \"" + role_ + "\"";
    sql << "GRANT SELECT ON public.\"odd \"\"name\" TO \"" + role_ + "\"";
    sql << "GRANT SELECT ON sales.orders TO PUBLIC";
  }
  auto p = NewPostgresProvider();
  auto resources = p->GetResources(config_);
  ASSERT_TRUE(resources.ok()) << resources.status();
  std::vector<v1beta1::Resource> orders;
  for (const auto& r : *resources) {
    if (r.urn() == "sales.orders") orders.push_back(r);
  }
  ASSERT_EQ(orders.size(), 1u);
  auto access = p->ListAccess(config_, orders);
  ASSERT_TRUE(access.ok()) << access.status();
  std::set<std::string> seen;
  for (const auto& a : *access) {
    EXPECT_EQ(a.resource_type, "table");
    EXPECT_EQ(a.resource_urn, "sales.orders");  // not the other table
    EXPECT_EQ(a.account_type, "user");
    ASSERT_EQ(a.permissions.size(), 1u);
    seen.insert(a.account_id + "/" + a.permissions[0]);
  }
  // "select" as the viewer role spells it; INSERT as the catalog does; no
  // owner, no PUBLIC.
  EXPECT_EQ(seen, (std::set<std::string>{role_ + "/select", role_ + "/INSERT"}));
}

TEST_F(PostgresProviderTest, GrantThenRevoke) {
  auto p = NewPostgresProvider();
  auto resources = p->GetResources(config_);
  ASSERT_TRUE(resources.ok()) << resources.status();
  AccessRequest req;
  req.account_id = role_;
  req.account_type = "user";
  req.role = "editor";
  req.permissions = {"SELECT", "insert"};
  for (const auto& r : *resources) {
    if (r.urn() == "sales.orders") req.resource = r;
  }
  ASSERT_EQ(req.resource.urn(), "sales.orders");
  EXPECT_FALSE(HasPrivilege("sales.orders", "SELECT"));
  ASSERT_TRUE(p->GrantAccess(config_, req).ok());
  ASSERT_TRUE(p->GrantAccess(config_, req).ok());  // idempotent
  EXPECT_TRUE(HasPrivilege("sales.orders", "SELECT"));
  EXPECT_TRUE(HasPrivilege("sales.orders", "INSERT"));
  EXPECT_FALSE(HasPrivilege("sales.orders", "DELETE"));
  ASSERT_TRUE(p->RevokeAccess(config_, req).ok());
  ASSERT_TRUE(p->RevokeAccess(config_, req).ok());  // idempotent
  EXPECT_FALSE(HasPrivilege("sales.orders", "SELECT"));
  EXPECT_FALSE(HasPrivilege("sales.orders", "INSERT"));

  // Identifiers with quotes and spaces are quoted, not spliced.
  for (const auto& r : *resources) {
    if (r.urn() == "public.odd \"name") req.resource = r;
  }
  ASSERT_EQ(req.resource.urn(), "public.odd \"name");
  ASSERT_TRUE(p->GrantAccess(config_, req).ok());
  EXPECT_TRUE(HasPrivilege("public.\"odd \"\"name\"", "SELECT"));

  // An unknown role cannot be granted to; revoking from it is a no-op.
  req.account_id = "no_such_role\"; DROP TABLE sales.orders; --";
  EXPECT_TRUE(absl::IsFailedPrecondition(p->GrantAccess(config_, req)));
  EXPECT_TRUE(p->RevokeAccess(config_, req).ok());
}

TEST(PostgresDsnTest, BoundsEveryStatementWithConfigurableTimeouts) {
  google::protobuf::Struct creds;
  auto& f = *creds.mutable_fields();
  f["host"].set_string_value("db");
  f["user"].set_string_value("sluice");
  f["dbname"].set_string_value("sales");
  auto dsn = PostgresDsn(creds);
  ASSERT_TRUE(dsn.ok()) << dsn.status();
  EXPECT_NE(dsn->find("options='-c statement_timeout=10000 -c lock_timeout=5000'"),
            std::string::npos)
      << *dsn;
  f["statement_timeout_ms"].set_number_value(2500);
  f["lock_timeout_ms"].set_string_value("0");
  dsn = PostgresDsn(creds);
  ASSERT_TRUE(dsn.ok()) << dsn.status();
  EXPECT_NE(dsn->find("options='-c statement_timeout=2500 -c lock_timeout=0'"), std::string::npos)
      << *dsn;
  for (const char* bad : {"-1", "soon", "1.5", "99999999999"}) {
    f["lock_timeout_ms"].set_string_value(bad);
    auto st = PostgresDsn(creds).status();
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << bad;
    EXPECT_NE(st.message().find("credentials.lock_timeout_ms"), std::string::npos) << st;
  }
}

// Finding M4: a table being altered in the target database (its pg_class row
// locked by an open ALTER TABLE) held GRANT, the approval and its pooled
// Sluice connection forever. Now the GRANT gives up after lock_timeout, and
// the next one succeeds once the table is free.
TEST_F(PostgresProviderTest, GrantOnALockedTableGivesUpInBoundedTime) {
  (*config_.mutable_credentials()->mutable_fields())["lock_timeout_ms"].set_number_value(300);
  (*config_.mutable_credentials()->mutable_fields())["statement_timeout_ms"].set_number_value(1000);
  auto p = NewPostgresProvider();
  auto resources = p->GetResources(config_);
  ASSERT_TRUE(resources.ok()) << resources.status();
  AccessRequest req;
  req.account_id = role_;
  req.account_type = "user";
  req.role = "viewer";
  req.permissions = {"SELECT"};
  for (const auto& r : *resources) {
    if (r.urn() == "sales.orders") req.resource = r;
  }
  ASSERT_EQ(req.resource.urn(), "sales.orders");
  {
    soci::session locker(soci::postgresql, target_->dsn());
    locker << "BEGIN";
    locker << "LOCK TABLE sales.orders";
    locker << "ALTER TABLE sales.orders ADD COLUMN note text";
    for (bool grant : {true, false}) {
      absl::Time start = absl::Now();
      absl::Status st = grant ? p->GrantAccess(config_, req) : p->RevokeAccess(config_, req);
      EXPECT_TRUE(absl::IsDeadlineExceeded(st)) << st;
      EXPECT_NE(st.message().find("lock_timeout"), absl::string_view::npos) << st;
      EXPECT_LT(absl::Now() - start, absl::Seconds(5));
    }
    locker << "ROLLBACK";
  }
  EXPECT_FALSE(HasPrivilege("sales.orders", "SELECT"));
  ASSERT_TRUE(p->GrantAccess(config_, req).ok());
  EXPECT_TRUE(HasPrivilege("sales.orders", "SELECT"));
}

// Finding M11: an appeal on behalf of "public" granted to PUBLIC (every
// role), since PostgreSQL reads the role name public as PUBLIC even quoted.
TEST_F(PostgresProviderTest, AccountsMustBeExistingNamedRoles) {
  auto p = NewPostgresProvider();
  EXPECT_TRUE(p->ValidateAccount(config_, "user", role_).ok());
  for (const char* bad : {"public", "PUBLIC", "Public", "pg_read_all_data", "PG_MONITOR",
                          "no_such_role", ""}) {
    auto st = p->ValidateAccount(config_, "user", bad);
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << bad << ": " << st;
    EXPECT_EQ(st.message().rfind("account_id: ", 0), 0u) << st;
  }
  // An existing role named like a reserved one is still refused (it would
  // read as PUBLIC in GRANT).
  {
    soci::session sql(soci::postgresql, target_->dsn());
    sql << "CREATE ROLE \"Public\"";
  }
  EXPECT_TRUE(absl::IsInvalidArgument(p->ValidateAccount(config_, "user", "Public")));
  {
    soci::session sql(soci::postgresql, target_->dsn());
    sql << "DROP ROLE \"Public\"";
  }
  auto down = config_;
  (*down.mutable_credentials()->mutable_fields())["port"].set_string_value("1");
  EXPECT_TRUE(absl::IsFailedPrecondition(p->ValidateAccount(down, "user", role_)));

  // GRANT and REVOKE refuse public themselves: PUBLIC keeps its privileges.
  auto resources = p->GetResources(config_);
  ASSERT_TRUE(resources.ok()) << resources.status();
  AccessRequest req;
  req.account_id = "public";
  req.permissions = {"SELECT"};
  for (const auto& r : *resources) {
    if (r.urn() == "sales.orders") req.resource = r;
  }
  {
    soci::session sql(soci::postgresql, target_->dsn());
    sql << "GRANT SELECT ON sales.orders TO PUBLIC";
  }
  EXPECT_TRUE(absl::IsInvalidArgument(p->GrantAccess(config_, req)));
  EXPECT_TRUE(absl::IsInvalidArgument(p->RevokeAccess(config_, req)));
  EXPECT_TRUE(HasPrivilege("sales.orders", "SELECT")) << "PUBLIC's grant is untouched";
}

TEST_F(PostgresProviderTest, UnreachableServerIsAnError) {
  auto p = NewPostgresProvider();
  auto bad = config_;
  (*bad.mutable_credentials()->mutable_fields())["port"].set_string_value("1");
  EXPECT_TRUE(absl::IsFailedPrecondition(p->GetResources(bad).status()));
}

}  // namespace
}  // namespace sluice::access
