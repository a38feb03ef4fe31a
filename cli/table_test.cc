// --output table: columns per list type, dot paths, timestamps, fallback.
#include "cli/table.h"

#include <algorithm>
#include <sstream>

#include <gtest/gtest.h>

#include "proto/sluice/access/v1beta1/appeal.pb.h"

namespace sluice::cli {
namespace {

namespace pb = ::sluice::access::v1beta1;

TEST(TableTest, GrantListAsAlignedColumnsWithTotal) {
  pb::ListGrantsResponse resp;
  auto* g = resp.add_grants();
  g->set_id("g1");
  g->set_status("active");
  g->set_account_id("alice@example.com");
  g->set_role("viewer");
  g->mutable_resource()->set_provider_type("postgres");
  g->mutable_resource()->set_urn("public.orders");
  g->mutable_expiration_date()->set_seconds(1800000000);
  auto* h = resp.add_grants();
  h->set_id("g2");
  h->set_status("inactive");
  resp.set_total(7);
  std::ostringstream out;
  ASSERT_TRUE(PrintTable(resp, out));
  EXPECT_EQ(out.str(),
            "ID  STATUS    ACCOUNT_ID         ROLE    RESOURCE.PROVIDER_TYPE  RESOURCE.URN   "
            "OWNER  SOURCE  EXPIRATION_DATE\n"
            "g1  active    alice@example.com  viewer  postgres                public.orders  "
            "               2027-01-15T08:00:00Z\n"
            "g2  inactive                                                                    "
            "               \n"
            "total: 7\n");
}

// An appeal keeps "approved" after its grant is revoked; the grant's status
// column tells whether the access is still held.
TEST(TableTest, AppealListShowsTheGrantStatus) {
  pb::ListAppealsResponse resp;
  auto* a = resp.add_appeals();
  a->set_id("a1");
  a->set_status("approved");
  a->mutable_grant()->set_status("inactive");
  auto* b = resp.add_appeals();
  b->set_id("a2");
  b->set_status("pending");
  std::ostringstream out;
  ASSERT_TRUE(PrintTable(resp, out));
  std::string text = out.str();
  EXPECT_EQ(text.rfind("ID  STATUS    GRANT.STATUS  ACCOUNT_ID", 0), 0u) << text;
  EXPECT_EQ(text.find("a1  approved  inactive"), text.find('\n') + 1) << text;
}

TEST(TableTest, CellsFollowPathsAndJoinRepeatedScalars) {
  pb::Grant g;
  g.add_permissions("SELECT");
  g.add_permissions("INSERT");
  g.set_is_permanent(true);
  EXPECT_EQ(Cell(g, "permissions"), "SELECT,INSERT");
  EXPECT_EQ(Cell(g, "is_permanent"), "true");
  EXPECT_EQ(Cell(g, "resource.urn"), "");  // absent message
  EXPECT_EQ(Cell(g, "nope"), "");
  EXPECT_EQ(Cell(g, "created_at"), "");  // unset timestamp
}

// Finding F-L7: C0 and C1 control characters (ESC, BEL, CSI U+009B, …) in a
// cell never reach the terminal; other text (UTF-8) is kept.
TEST(TableTest, ControlCharactersAreStrippedFromCells) {
  pb::ListGrantsResponse resp;
  auto* g = resp.add_grants();
  g->set_id("g1");
  g->set_owner("ev\x1b]0;pwned\x07il\x1b[2J\r\n\t\x7f" "a\xc2\x9b" "31mb\xc3\xa9@x.com");
  std::ostringstream out;
  ASSERT_TRUE(PrintTable(resp, out));
  std::string text = out.str();
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') continue;
    EXPECT_FALSE(u < 0x20 || u == 0x7f) << "control byte " << int(u) << " in " << text;
  }
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << text;
  EXPECT_NE(text.find("ev]0;pwnedil[2Ja31mb\xc3\xa9@x.com"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);  // header, one row, total
}

TEST(TableTest, UnknownTypesShowTheirScalarFieldsAndNonListsAreNotTables) {
  pb::RevokeGrantsResponse resp;  // grants (known), failed (RevokeFailure: fallback)
  std::vector<std::string> cols = TableColumns(*pb::RevokeFailure::descriptor());
  EXPECT_EQ(cols, (std::vector<std::string>{"grant_id", "appeal_id", "account_id", "error"}));
  pb::GetGrantResponse one;
  std::ostringstream out;
  EXPECT_FALSE(PrintTable(one, out));
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace sluice::cli
