#include "server/notification/core/silence.h"

#include <gtest/gtest.h>

#include "server/notification/core/fakes.h"
#include "server/notification/core/notify.h"

namespace sluice::notification {
namespace {

using nlohmann::json;

Silence Matchers(json labels, uint64_t ns = 0) {
  Silence s;
  s.id = "m";
  s.type = kSilenceTypeMatchers;
  s.namespace_id = ns;
  s.target_expression = std::move(labels);
  return s;
}

Silence OfSubscription(uint64_t sub, std::string rule = "") {
  Silence s;
  s.id = "sub";
  s.type = kSilenceTypeSubscription;
  s.target_id = sub;
  if (!rule.empty()) s.target_expression = json{{"rule", rule}};
  return s;
}

SubscribedDelivery Route(uint64_t sub, uint64_t receiver, const std::string& type = "http") {
  return SubscribedDelivery{sub, Delivery{receiver, type, json::object()}};
}

TEST(ValidateSilenceTest, SirenRulesWithFieldNames) {
  Silence ok = Matchers({{"team", "db"}});
  ok.type = "matchers";  // any case; stored as Siren spells it
  EXPECT_TRUE(ValidateSilence(ok).ok());
  EXPECT_EQ(ok.type, "Matchers");
  Silence plain = OfSubscription(3);
  EXPECT_TRUE(ValidateSilence(plain).ok());
  Silence with_rule = OfSubscription(3, "Type == 'slack' && Labels.team == 'db'");
  EXPECT_TRUE(ValidateSilence(with_rule).ok());

  struct Case {
    Silence s;
    const char* field;
  };
  Silence unknown_type = Matchers({{"a", "b"}});
  unknown_type.type = "labels";
  Silence not_string = Matchers({{"a", 1}});
  Silence bad_key = OfSubscription(3);
  bad_key.target_expression = {{"team", "db"}};
  std::vector<Case> cases = {
      {unknown_type, "type:"},
      {Matchers(json::object()), "target_expression:"},
      {not_string, "target_expression.a:"},
      {OfSubscription(0), "target_id:"},
      {bad_key, "target_expression.team:"},
      {OfSubscription(3, "Type =="), "target_expression.rule:"},
      // expr-lang features outside Sluice's dialect, and unknown variables.
      {OfSubscription(3, "all(Labels, {# == 'x'})"), "target_expression.rule:"},
      {OfSubscription(3, "Receiver.Type == 'x'"), "unknown variable 'Receiver'"},
  };
  for (Case& c : cases) {
    absl::Status st = ValidateSilence(c.s);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_NE(st.message().find(c.field), std::string::npos) << st;
  }
}

TEST(ApplySilencesTest, MatchersSilenceEverythingWhenLabelsIncludeThem) {
  Labels labels = {{"team", "db"}, {"severity", "CRITICAL"}};
  std::vector<SubscribedDelivery> routes = {Route(1, 10), Route(2, 20)};
  SilenceOutcome none = ApplySilences({Matchers({{"team", "web"}})}, 0, labels, routes);
  EXPECT_EQ(none.status, "");
  EXPECT_EQ(none.deliveries.size(), 2u);
  EXPECT_TRUE(none.silence_ids.empty());

  SilenceOutcome total = ApplySilences({Matchers({{"team", "db"}})}, 0, labels, routes);
  EXPECT_EQ(total.status, kSilenceStatusTotal);
  EXPECT_TRUE(total.deliveries.empty());
  EXPECT_EQ(total.silence_ids, std::vector<std::string>{"m"});

  // Even with no subscription matched, the alert is silenced.
  EXPECT_EQ(ApplySilences({Matchers({{"team", "db"}})}, 0, labels, {}).status, "total");
  // A silence of another namespace does not apply; of the same one, it does.
  EXPECT_EQ(ApplySilences({Matchers({{"team", "db"}}, 7)}, 8, labels, routes).status, "");
  EXPECT_EQ(ApplySilences({Matchers({{"team", "db"}}, 7)}, 7, labels, routes).status, "total");
  // Expired silences never apply.
  Silence expired = Matchers({{"team", "db"}});
  expired.deleted_at = absl::Now();
  EXPECT_EQ(ApplySilences({expired}, 0, labels, routes).deliveries.size(), 2u);
}

TEST(ApplySilencesTest, SubscriptionSilencesOnlyItsReceiversAndIsPartial) {
  Labels labels = {{"team", "db"}};
  std::vector<SubscribedDelivery> routes = {Route(1, 10, "slack"), Route(1, 11, "http"),
                                            Route(2, 20, "http")};
  SilenceOutcome whole = ApplySilences({OfSubscription(1)}, 0, labels, routes);
  EXPECT_EQ(whole.status, kSilenceStatusPartial);
  ASSERT_EQ(whole.deliveries.size(), 1u);
  EXPECT_EQ(whole.deliveries[0].receiver_id, 20u);

  SilenceOutcome by_rule =
      ApplySilences({OfSubscription(1, "Type == 'slack'")}, 0, labels, routes);
  EXPECT_EQ(by_rule.status, kSilenceStatusPartial);
  EXPECT_EQ(by_rule.deliveries.size(), 2u);

  SilenceOutcome rule_on_labels =
      ApplySilences({OfSubscription(2, "Labels.team == 'web'")}, 0, labels, routes);
  EXPECT_EQ(rule_on_labels.status, "");
  EXPECT_EQ(rule_on_labels.deliveries.size(), 3u);

  // Silencing every subscription is total.
  SilenceOutcome all = ApplySilences({OfSubscription(1), OfSubscription(2)}, 0, labels, routes);
  EXPECT_EQ(all.status, kSilenceStatusTotal);
  EXPECT_TRUE(all.deliveries.empty());

  // A receiver reached through a silenced and an open subscription still
  // gets it once, through the open one.
  SilenceOutcome shared =
      ApplySilences({OfSubscription(1)}, 0, labels, {Route(1, 10), Route(2, 10)});
  EXPECT_EQ(shared.status, kSilenceStatusPartial);
  EXPECT_EQ(shared.deliveries.size(), 1u);

  // A rule failing at run time (non-bool) silences nothing.
  EXPECT_EQ(ApplySilences({OfSubscription(1, "ID + 1")}, 0, labels, routes).status, "");
}

class SilencedAlertTest : public ::testing::Test {
 protected:
  SilencedAlertTest() {
    Receiver r;
    r.name = "r";
    r.type = "http";
    receiver_ = *receivers_.Create(r, "");
    Subscription s;
    s.urn = "db";
    s.namespace_id = 5;  // the namespace of Group()
    s.match = {{"team", "db"}};
    s.receivers = {{receiver_, json::object()}};
    subscription_ = *subs_.Create(s, "");
  }
  AlertGroup Group() {
    AlertGroup g;
    g.provider_type = "cortex";
    g.provider_id = "3";
    g.namespace_id = 5;
    g.group_key = "gk";
    g.status = "firing";
    g.common_labels = {{"team", "db"}, {"severity", "CRITICAL"}};
    Alert a;
    a.status = "firing";
    a.labels = g.common_labels;
    a.annotations = {{"resource", "db-1"},
                     {"metric_name", "cpu"},
                     {"metric_value", "97"},
                     {"template", "CPU"}};
    a.starts_at = absl::FromUnixSeconds(1000);
    g.alerts = {a};
    return g;
  }
  testing::FakeReceiverRepository receivers_;
  testing::FakeSubscriptionRepository subs_;
  testing::FakeTemplateRepository templates_;
  testing::FakeNotificationRepository queue_;
  testing::FakeAlertRepository alerts_;
  testing::FakeSilenceRepository silence_rows_;
  NotificationService notifications_{&receivers_, &subs_, &templates_, &queue_, QueuePolicy{},
                                     nullptr};
  AlertService alert_service_{&notifications_, &alerts_, &silence_rows_};
  SilenceService silences_{&silence_rows_, &subs_};
  uint64_t receiver_ = 0, subscription_ = 0;
};

TEST_F(SilencedAlertTest, SirenFieldsSilenceAndExpire) {
  auto first = alert_service_.Ingest(Group());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_GT(*first, 0u);
  const Alert& a = alerts_.rows.back();
  EXPECT_EQ(a.resource_name, "db-1");
  EXPECT_EQ(a.metric_name, "cpu");
  EXPECT_EQ(a.metric_value, "97");
  EXPECT_EQ(a.rule, "CPU");
  EXPECT_EQ(a.severity, "CRITICAL");
  EXPECT_EQ(a.triggered_at, absl::FromUnixSeconds(1000));
  EXPECT_EQ(a.namespace_id, 5u);
  EXPECT_EQ(a.silence_status, "");

  Silence s;
  s.type = "subscription";
  s.target_id = subscription_;
  s.comment = "maintenance";
  auto created = silences_.Create(s, "ops@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->creator, "ops@x.com");
  std::vector<Alert> stored;
  auto silenced = alert_service_.Ingest(Group(), &stored);
  ASSERT_TRUE(silenced.ok());
  EXPECT_EQ(*silenced, 0u);  // nothing delivered
  ASSERT_EQ(stored.size(), 1u);  // what Siren's CreateAlerts replies
  EXPECT_EQ(stored[0].id, alerts_.rows.back().id);
  EXPECT_EQ(stored[0].resource_name, "db-1");
  EXPECT_EQ(stored[0].silence_status, "total");
  EXPECT_EQ(alerts_.rows.back().silence_status, "total");
  EXPECT_EQ(alerts_.rows.back().silence_ids, std::vector<std::string>{created->id});

  ASSERT_TRUE(silences_.Expire(created->id).ok());
  EXPECT_TRUE(silences_.Get(created->id)->deleted_at.has_value());
  auto after = alert_service_.Ingest(Group());
  ASSERT_TRUE(after.ok());
  EXPECT_GT(*after, 0u);
  EXPECT_EQ(alerts_.rows.back().silence_status, "");

  // A resolved alert has severity "resolved" (Siren's cortex plugin).
  AlertGroup resolved = Group();
  resolved.alerts[0].status = "resolved";
  ASSERT_TRUE(alert_service_.Ingest(resolved).ok());
  EXPECT_EQ(alerts_.rows.back().severity, "resolved");
}

TEST_F(SilencedAlertTest, NamespacedHookMatchesOnlyThatNamespacesSubscriptions) {
  subs_.rows[subscription_].namespace_id = 9;
  auto other = alert_service_.Ingest(Group());  // namespace 5
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(*other, 0u);
  AlertGroup same = Group();
  same.namespace_id = 9;
  EXPECT_GT(*alert_service_.Ingest(same), 0u);
  AlertGroup none = Group();
  none.namespace_id = 0;  // the hook without namespace: any subscription
  EXPECT_GT(*alert_service_.Ingest(none), 0u);
}

TEST_F(SilencedAlertTest, ServiceErrorsNameTheField) {
  Silence unknown_sub;
  unknown_sub.type = "subscription";
  unknown_sub.target_id = 999;
  auto st = silences_.Create(unknown_sub, "ops@x.com");
  EXPECT_EQ(st.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(st.status().message().find("target_id"), std::string::npos);
  EXPECT_EQ(silences_.Get("").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(silences_.Expire("nope").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(alert_service_.List(AlertFilter{}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice::notification
