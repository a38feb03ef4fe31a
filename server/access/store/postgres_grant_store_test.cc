// The grant lifecycle's store paths against real PostgreSQL: an imported
// grant without an appeal, reading a grant in a transaction, and UpdateGrant
// writing owner, restore and expiration fields.
#include <gtest/gtest.h>

#include "server/access/store/testing/store_test.h"
#include "server/access/core/validation.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/postgres_repositories.h"

namespace sluice::access {
namespace {

class GrantStoreTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (HasFatalFailure()) return;
    rid_ = CreateResource("table", "t1");
  }

  std::string rid_;
};

TEST_F(GrantStoreTest, ImportedGrantRoundTripsWithOwnerAndRestoreFields) {
  PostgresAppealRepository appeals(pool_.get());
  pb::Grant g;
  g.set_status("active");
  g.set_status_in_provider("active");
  g.set_account_id("u@x.com");
  g.set_account_type("user");
  g.set_resource_id(rid_);
  g.set_role("viewer");
  g.add_permissions("SELECT");
  g.set_is_permanent(true);
  g.set_source("import");
  g.set_provider_state(R"({"site_role_before":"Viewer"})");
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) { return tx.InsertGrant(&g); }).ok());
  ASSERT_FALSE(g.id().empty());

  absl::Time restored = absl::FromUnixSeconds(1800000000), expires = restored + absl::Hours(5);
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) -> absl::Status {
    auto got = tx.GetGrant(g.id(), /*for_update=*/true);
    if (!got.ok()) return got.status();
    EXPECT_EQ(got->resource().urn(), "t1");
    EXPECT_TRUE(got->appeal_id().empty());
    EXPECT_EQ(got->provider_state(), R"({"site_role_before":"Viewer"})");
    got->set_provider_state(R"({"site_role_before":"Explorer"})");
    got->set_owner("v@x.com");
    got->set_restored_by("admin@x.com");
    *got->mutable_restored_at() = ToTimestamp(restored);
    got->set_restore_reason("mistake");
    got->set_is_permanent(false);
    *got->mutable_expiration_date() = ToTimestamp(expires);
    got->set_expiration_date_reason("restored");
    return tx.UpdateGrant(*got);
  }).ok());
  auto read = appeals.GetGrant(g.id());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->source(), "import");
  EXPECT_EQ(read->owner(), "v@x.com");
  EXPECT_EQ(read->restored_by(), "admin@x.com");
  EXPECT_EQ(FromTimestamp(read->restored_at()), restored);
  EXPECT_EQ(read->restore_reason(), "mistake");
  EXPECT_FALSE(read->is_permanent());
  EXPECT_EQ(FromTimestamp(read->expiration_date()), expires);
  EXPECT_EQ(read->expiration_date_reason(), "restored");
  EXPECT_EQ(read->provider_state(), R"({"site_role_before":"Explorer"})");  // review F-M3

  // By provider: the grant is found with its resource.
  std::vector<pb::Grant> active;
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) -> absl::Status {
    GrantSelector s;
    s.provider_types = {"noop"};
    auto found = tx.FindActiveGrants(s, 10);
    if (found.ok()) active = *found;
    return found.status();
  }).ok());
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].id(), g.id());

  absl::Status missing = appeals.InTransaction([&](AccessTx& tx) {
    return tx.GetGrant("00000000-0000-0000-0000-000000000000", false).status();
  });
  EXPECT_TRUE(absl::IsNotFound(missing)) << missing;
}

}  // namespace
}  // namespace sluice::access
