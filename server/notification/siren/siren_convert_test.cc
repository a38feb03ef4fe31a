#include "server/notification/siren/siren_convert.h"

#include "gtest/gtest.h"

namespace sluice::notification::siren {
namespace {

// Siren answers a receiver's implicit labels id and type with the user's
// (recorded from the real Siren: integration/testdata/siren.transcript.json).
TEST(SirenConvert, ReceiverKeepsImplicitLabelsAsSirenDoes) {
  Receiver r;
  r.id = 7;
  r.type = "http";
  r.labels = {{"id", "7"}, {"type", "http"}, {"team", "core"}};
  spb::Receiver out;
  ToSiren(r, &out);
  EXPECT_EQ(out.labels().size(), 3);
  EXPECT_EQ(out.labels().at("team"), "core");
  EXPECT_EQ(out.labels().at("id"), "7");
  EXPECT_EQ(out.labels().at("type"), "http");
  EXPECT_TRUE(out.has_data());
}

TEST(SirenConvert, SubscriptionCarriesRelationLabelsMetadataAndAuthors) {
  Subscription s;
  s.id = 3;
  s.urn = "u";
  s.receivers.push_back(SubscriptionReceiver{});
  s.receivers[0].id = 9;
  s.receivers[0].labels = {{"severity", "critical"}};
  s.metadata = {{"owner", "team-a"}};
  s.created_by = "alice";
  s.updated_by = "bob";
  spb::Subscription out;
  ToSiren(s, &out);
  ASSERT_EQ(out.receivers_size(), 1);
  EXPECT_EQ(out.receivers(0).subscription_receiver_labels().at("severity"), "critical");
  EXPECT_EQ(out.metadata().fields().at("owner").string_value(), "team-a");
  EXPECT_EQ(out.created_by(), "alice");
  EXPECT_EQ(out.updated_by(), "bob");

  spb1::Subscription v1;
  ToSiren(s, &v1);
  ASSERT_EQ(v1.receivers_relation_size(), 1);
  EXPECT_EQ(v1.receivers_relation(0).subscription_id(), 3u);
  EXPECT_EQ(v1.receivers_relation(0).labels().at("severity"), "critical");
}

TEST(SirenConvert, AlertCarriesSirensFields) {
  Alert a;
  a.provider_id = "12";
  a.resource_name = "db-1";
  a.metric_name = "cpu";
  a.metric_value = "97";
  a.severity = "CRITICAL";
  a.rule = "cpu-high";
  a.namespace_id = 10;
  a.silence_status = "total";
  a.triggered_at = absl::FromUnixSeconds(1700000000);
  spb::Alert out;
  ToSiren(a, &out);
  EXPECT_EQ(out.provider_id(), 12u);
  EXPECT_EQ(out.resource_name(), "db-1");
  EXPECT_EQ(out.metric_name(), "cpu");
  EXPECT_EQ(out.metric_value(), "97");
  EXPECT_EQ(out.severity(), "CRITICAL");
  EXPECT_EQ(out.rule(), "cpu-high");
  EXPECT_EQ(out.triggered_at().seconds(), 1700000000);
  EXPECT_EQ(out.namespace_id(), 10u);
  EXPECT_EQ(out.silence_status(), "total");
}

TEST(SirenConvert, MessageIdsAreStrings) {
  Message m;
  m.id = 5;
  m.notification_id = 4;
  m.status = kEnqueued;
  spb::NotificationMessage out;
  ToSiren(m, &out);
  EXPECT_EQ(out.id(), "5");
  ASSERT_EQ(out.notification_ids_size(), 1);
  EXPECT_EQ(out.notification_ids(0), "4");
  EXPECT_TRUE(out.retryable());
}

TEST(SirenConvert, ListFilterKeepsSirensTwoMatchMeanings) {
  spb::ListSubscriptionsRequest req;
  (*req.mutable_match())["team"] = "a";
  (*req.mutable_notification_match())["team"] = "a";
  (*req.mutable_notification_match())["env"] = "prod";
  req.set_receiver_id(4);
  SubscriptionFilter f = FilterOf(req);
  EXPECT_EQ(f.match, (Labels{{"team", "a"}}));
  ASSERT_TRUE(f.notification_match.has_value());
  EXPECT_EQ(f.notification_match->size(), 2u);
  EXPECT_EQ(f.receiver_id, 4u);
  spb::ListSubscriptionsRequest none;
  EXPECT_FALSE(FilterOf(none).notification_match.has_value());
}

TEST(SirenConvert, WebhookBodyIsCheckedByField) {
  google::protobuf::Struct body;
  auto& fields = *body.mutable_fields();
  fields["version"].set_string_value("4");
  fields["status"].set_string_value("firing");
  auto* alert = fields["alerts"].mutable_list_value()->add_values()->mutable_struct_value();
  (*alert->mutable_fields())["startsAt"].set_string_value("2026-11-26T10:00:00Z");
  (*alert->mutable_fields())["status"].set_string_value("firing");
  auto group = AlertGroupFromBody(body, "cortex", "1");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->provider_id, "1");
  ASSERT_EQ(group->alerts.size(), 1u);

  (*alert->mutable_fields())["startsAt"].set_string_value("yesterday");
  auto bad = AlertGroupFromBody(body, "cortex", "1");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("alerts[0].startsAt"), std::string::npos);

  fields["bogus"].set_string_value("x");
  EXPECT_EQ(AlertGroupFromBody(body, "cortex", "1").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice::notification::siren
