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

TEST(ConvertTest, NamespaceHookAndSirenAlertFields) {
  pb::CreateAlertsRequest req;
  req.set_namespace_id(7);
  req.add_alerts()->set_starts_at("2024-01-01T00:00:00Z");
  auto group = FromProto(req);
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->namespace_id, 7u);

  Alert a = group->alerts[0];
  a.resource_name = "db-1";
  a.severity = "CRITICAL";
  a.silence_status = "partial";
  a.silence_ids = {"u1", "u2"};
  pb::Alert out;
  ToProto(a, &out);  // triggered_at unset: startsAt
  EXPECT_EQ(out.resource_name(), "db-1");
  EXPECT_EQ(out.severity(), "CRITICAL");
  EXPECT_EQ(out.silence_status(), "partial");
  EXPECT_EQ(out.silence_ids_size(), 2);
  EXPECT_EQ(out.triggered_at().seconds(), 1704067200);
  pb::Alert never;
  ToProto(Alert{}, &never);  // no time at all: no triggered_at, still printable
  EXPECT_FALSE(never.has_triggered_at());
}

TEST(ConvertTest, SilenceRequestsAndReplies) {
  pb::CreateSilenceRequest create;
  create.set_namespace_id(5);
  create.set_type("subscription");
  create.set_target_id(3);
  (*create.mutable_target_expression()->mutable_fields())["rule"].set_string_value("ID == 1");
  create.set_comment("why");
  Silence s = FromProto(create);
  EXPECT_EQ(s.namespace_id, 5u);
  EXPECT_EQ(s.type, "subscription");
  EXPECT_EQ(s.target_id, 3u);
  EXPECT_EQ(s.target_expression, (nlohmann::json{{"rule", "ID == 1"}}));
  EXPECT_EQ(s.comment, "why");

  pb::ListSilencesRequest list;
  list.set_subscription_id(3);
  (*list.mutable_match())["team"] = "db";
  (*list.mutable_subscription_match())["env"] = "prod";
  list.set_include_expired(true);
  SilenceFilter f = FromProto(list);
  EXPECT_EQ(f.subscription_id, 3u);
  EXPECT_EQ(f.match, (Labels{{"team", "db"}}));
  EXPECT_EQ(f.subscription_match, (Labels{{"env", "prod"}}));
  EXPECT_TRUE(f.include_expired);

  s.id = "u1";
  s.creator = "ops@x.com";
  s.created_at = absl::FromUnixSeconds(100);
  pb::Silence active;
  ToProto(s, &active);
  EXPECT_EQ(active.creator(), "ops@x.com");
  EXPECT_EQ(active.target_expression().fields().at("rule").string_value(), "ID == 1");
  EXPECT_FALSE(active.has_deleted_at());
  s.deleted_at = absl::FromUnixSeconds(200);
  pb::Silence expired;
  ToProto(s, &expired);
  EXPECT_EQ(expired.deleted_at().seconds(), 200);

  pb::ListAlertsRequest alerts;
  alerts.set_provider_type("cortex");
  alerts.set_provider_id("3");
  alerts.set_start_time(10);
  alerts.set_resource_name("db-1");
  alerts.set_silence_id("u1");
  alerts.set_namespace_id(7);
  AlertFilter af = FromProto(alerts);
  EXPECT_EQ(af.from, absl::FromUnixSeconds(10));
  EXPECT_EQ(af.to, absl::InfiniteFuture());
  EXPECT_EQ(af.resource_name, "db-1");
  EXPECT_EQ(af.silence_id, "u1");
  EXPECT_EQ(af.namespace_id, 7u);
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
