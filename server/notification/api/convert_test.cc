// proto <-> domain conversions of the notification API.
#include "server/notification/api/convert.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

namespace sluice::notification::api {
namespace {

// An alert time outside google.protobuf.Timestamp's range (years 0001-9999)
// is refused at the hook: stored, it made every reply listing the alert
// unprintable as JSON (found by scripts/fuzz-requests.sh).
TEST(ConvertTest, AlertTimesOutsideTimestampRangeAreInvalid) {
  for (const char* bad : {"0000-01-01T00:00:00Z", "0000-12-31T23:59:59+00:00",
                          "10000-01-01T00:00:00Z", "9999-12-31T23:59:59-01:00"}) {
    pb::CreateAlertsRequest starts;
    starts.add_alerts()->set_starts_at(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(FromProto(starts).status())) << bad;
    pb::CreateAlertsRequest ends;
    auto* a = ends.add_alerts();
    a->set_starts_at("2024-01-01T00:00:00Z");
    a->set_ends_at(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(FromProto(ends).status())) << bad;
  }
}

TEST(ConvertTest, AlertTimesAtTheEdgesOfTheRangeAreKeptAndPrint) {
  pb::CreateAlertsRequest req;
  auto* a = req.add_alerts();
  a->set_starts_at("0001-01-02T00:00:00Z");
  a->set_ends_at("9999-12-31T23:59:59.999999999Z");
  auto group = FromProto(req);
  ASSERT_TRUE(group.ok()) << group.status();
  pb::Alert out;
  ToProto(group->alerts[0], &out);
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(out, &json).ok());
  EXPECT_NE(json.find("\"startsAt\":\"0001-01-02T00:00:00Z\""), std::string::npos) << json;
  EXPECT_NE(json.find("9999-12-31T23:59:59"), std::string::npos) << json;
}

TEST(ConvertTest, AlertmanagerZeroTimeMeansUnset) {
  pb::CreateAlertsRequest req;
  auto* a = req.add_alerts();
  a->set_starts_at("2024-01-01T00:00:00Z");
  a->set_ends_at("0001-01-01T00:00:00Z");
  auto group = FromProto(req);
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_FALSE(group->alerts[0].ends_at.has_value());
}

TEST(ConvertTest, TemplateCarriesItsEngine) {
  Template t;
  t.name = "siren";
  t.body = "- receiver_type: slack\n  content: 'text: x'\n";
  t.engine = "go";
  pb::Template out;
  ToProto(t, &out);
  EXPECT_EQ(out.engine(), "go");
  ToProto(Template{}, &out);
  EXPECT_EQ(out.engine(), "mustache");
}

}  // namespace
}  // namespace sluice::notification::api
