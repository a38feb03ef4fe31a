#include "server/notification/core/notify.h"

#include <gtest/gtest.h>

#include "server/notification/core/fakes.h"
#include "server/notification/core/template_engine.h"

namespace sluice::notification {
namespace {

using nlohmann::json;

class NotifyTest : public ::testing::Test {
 protected:
  uint64_t AddReceiver(Labels labels, const std::string& type = "http") {
    Receiver r;
    r.name = "r";
    r.type = type;
    r.labels = std::move(labels);
    return *receivers_.Create(r, "");
  }
  uint64_t AddSubscription(Labels match, std::vector<SubscriptionReceiver> rs) {
    Subscription s;
    s.urn = "s" + std::to_string(subs_.rows.size());
    s.match = std::move(match);
    s.receivers = std::move(rs);
    return *subs_.Create(s, "");
  }
  std::set<uint64_t> ReceiversOf(uint64_t id) {
    std::set<uint64_t> out;
    auto messages = notifications_.ListMessages(id);
    for (const Message& m : *messages) out.insert(m.receiver_id);
    return out;
  }
  testing::FakeReceiverRepository receivers_;
  testing::FakeSubscriptionRepository subs_;
  testing::FakeTemplateRepository templates_;
  testing::FakeNotificationRepository queue_;
  testing::FakeAlertRepository alerts_;
  int wakes_ = 0;
  NotificationService notifications_{&receivers_, &subs_, &templates_, &queue_,
                                     QueuePolicy{5, absl::Hours(1)}, [this] { ++wakes_; }};
  AlertService alert_service_{&notifications_, &alerts_};
};

TEST_F(NotifyTest, SelectorsUnionAndSubscriptions) {
  uint64_t a = AddReceiver({{"team", "x"}, {"env", "prod"}});
  uint64_t b = AddReceiver({{"team", "x"}, {"env", "dev"}});
  uint64_t c = AddReceiver({{"team", "y"}});
  NotificationRequest req;
  req.data = json::object();
  req.receivers = {json{{"team", "x"}, {"env", "prod"}}, json{{"id", c}}};
  auto id = notifications_.Post(req, "", "a@x.com");
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(ReceiversOf(*id), (std::set<uint64_t>{a, c}));
  EXPECT_EQ(wakes_, 1);
  EXPECT_EQ(queue_.notifications[*id].template_name, kDefaultTemplate);
  EXPECT_EQ((*notifications_.ListMessages(*id))[0].max_tries, 5);

  AddSubscription({{"svc", "api"}}, {{b, json::object()}});
  AddSubscription({{"svc", "api"}, {"sev", "high"}}, {{c, json::object()}});
  AddSubscription({}, {{a, {{"url", "elsewhere"}}}});  // empty match: everything
  NotificationRequest by_labels;
  by_labels.data = json::object();
  by_labels.labels = {{"svc", "api"}};
  auto id2 = notifications_.Post(by_labels, "", "a@x.com");
  EXPECT_EQ(ReceiversOf(*id2), (std::set<uint64_t>{a, b}));
}

TEST_F(NotifyTest, ErrorsAndIdempotency) {
  AddReceiver({{"team", "x"}});
  NotificationRequest req;
  req.receivers = {json{{"team", "x"}}};
  EXPECT_EQ(notifications_.Post(req, "", "a@x.com").status().code(), absl::StatusCode::kInvalidArgument);
  req.data = json::object();
  req.template_name = "missing";
  EXPECT_EQ(notifications_.Post(req, "", "a@x.com").status().code(), absl::StatusCode::kNotFound);
  req.template_name = "";
  req.receivers = {json{{"team", "nobody"}}};
  EXPECT_EQ(notifications_.Post(req, "", "a@x.com").status().code(), absl::StatusCode::kNotFound);
  req.receivers = {};
  EXPECT_EQ(notifications_.Post(req, "", "a@x.com").status().code(), absl::StatusCode::kInvalidArgument);

  req.receivers = {json{{"team", "x"}}};
  auto first = notifications_.Post(req, "key-1", "a@x.com");
  auto again = notifications_.Post(req, "key-1", "a@x.com");
  EXPECT_EQ(*first, *again);
  EXPECT_EQ(queue_.messages.size(), 1u);
  EXPECT_NE(*notifications_.Post(req, "key-2", "a@x.com"), *first);
  // The same key from another caller is another notification.
  auto other = notifications_.Post(req, "key-1", "b@x.com");
  EXPECT_NE(*other, *first);
  EXPECT_EQ(*notifications_.Post(req, "key-1", "b@x.com"), *other);
  EXPECT_EQ(queue_.messages.size(), 3u);
}

TEST_F(NotifyTest, AlertGroupMatchesCommonLabelsAndIsStoredEvenWithoutMatch) {
  uint64_t r = AddReceiver({}, "pagerduty");
  AddSubscription({{"team", "db"}}, {{r, json::object()}});
  AlertGroup g;
  g.provider_type = "alertmanager";
  g.provider_id = "p";
  g.group_key = "gk";
  g.status = "firing";
  g.common_labels = {{"team", "db"}, {"alertname", "Lag"}, {"severity", "warning"}};
  g.common_annotations = {{"summary", "slow"}};
  Alert a;
  a.status = "firing";
  a.labels = g.common_labels;
  g.alerts = {a};
  auto id = alert_service_.Ingest(g);
  ASSERT_TRUE(id.ok());
  ASSERT_GT(*id, 0u);
  const Notification& n = queue_.notifications[*id];
  EXPECT_EQ(n.template_name, kAlertTemplate);
  EXPECT_EQ(n.data["group_key"], "gk");
  EXPECT_EQ(n.data["title"], "Lag: slow");
  EXPECT_EQ(n.data["pagerduty_severity"], "warning");
  EXPECT_EQ(alerts_.rows.size(), 1u);
  EXPECT_EQ(alerts_.rows[0].notification_id, *id);

  // PagerDuty's alert template renders a trigger with the dedup key.
  auto pd = RenderPayload(*FindBuiltinTemplate("system-alert-pagerduty"), n.data, "pagerduty");
  ASSERT_TRUE(pd.ok()) << pd.status();
  EXPECT_EQ((*pd)["event_action"], "trigger");
  EXPECT_EQ((*pd)["dedup_key"], "gk");

  g.common_labels = {{"team", "nobody"}};
  auto none = alert_service_.Ingest(g);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0u);
  EXPECT_EQ(alerts_.rows.size(), 2u);
}

}  // namespace
}  // namespace sluice::notification
