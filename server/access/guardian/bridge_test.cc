#include "server/access/guardian/bridge.h"

#include <gtest/gtest.h>

#include "proto/sluice/access/v1beta1/appeal.pb.h"
#include "proto/sluice/guardian/v1beta1/guardian.pb.h"

namespace sluice::access::guardian {
namespace {

namespace gpb = ::gotocompany::guardian::v1beta1;
namespace spb = ::sluice::access::v1beta1;

TEST(CopyByName, CarriesFieldsWhoseNumbersDiffer) {
  gpb::CreateAppealRequest in;
  in.set_account_id("user@example.com");
  in.set_account_type("user");
  auto* r = in.add_resources();
  r->set_id("r1");
  r->set_role("viewer");
  (*r->mutable_options()->mutable_fields())["duration"].set_string_value("24h");
  spb::CreateAppealRequest out;
  ASSERT_TRUE(CopyByName(in, &out, /*drop_unknown=*/false).ok());
  EXPECT_EQ(out.account_id(), "user@example.com");
  ASSERT_EQ(out.resources_size(), 1);
  EXPECT_EQ(out.resources(0).role(), "viewer");
  // Guardian's options are a Struct, Sluice's a typed message: same JSON.
  EXPECT_EQ(out.resources(0).options().duration(), "24h");
}

TEST(CopyByName, RefusesASetFieldTheTargetLacksAndNamesIt) {
  gpb::ListProvidersRequest in;
  in.add_field_masks("id");  // Guardian's; Sluice's ListProvidersRequest has none
  spb::ListAppealsRequest unrelated;
  absl::Status st = CopyByName(in, &unrelated, /*drop_unknown=*/false);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "unknown field \"field_masks\" in ListProvidersRequest");
}

TEST(CopyByName, UnsetFieldsAreNotRefused) {
  gpb::ListProvidersRequest in;  // nothing set: nothing to refuse
  spb::ListAppealsRequest unrelated;
  EXPECT_TRUE(CopyByName(in, &unrelated, /*drop_unknown=*/false).ok());
}

TEST(FirstUnknownField, LooksInsideRepeatedMessages) {
  gpb::CreateAppealRequest in;
  in.add_resources()->set_id("r1");
  // GetAppealRequest has an `id` but no `resources`: refused at the top.
  EXPECT_EQ(FirstUnknownField(in, *spb::GetAppealRequest::descriptor()),
            "unknown field \"resources\" in CreateAppealRequest");
  // Against itself, every field has its namesake, at every depth.
  EXPECT_EQ(FirstUnknownField(in, *gpb::CreateAppealRequest::descriptor()), "");
}

TEST(CopyByName, DropsOnlyWhenAsked) {
  spb::GetAppealRequest in;
  in.set_id("a1");
  gpb::ListProvidersRequest out;  // has no `id`
  EXPECT_FALSE(CopyByName(in, &out, /*drop_unknown=*/false).ok());
  EXPECT_TRUE(CopyByName(in, &out, /*drop_unknown=*/true).ok());
}

}  // namespace
}  // namespace sluice::access::guardian
