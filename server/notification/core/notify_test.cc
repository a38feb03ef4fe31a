#include "server/notification/core/notify.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/notification/core/fakes.h"
#include "server/notification/core/go_template.h"
#include "server/notification/core/template_engine.h"

namespace sluice::notification {
namespace {

using nlohmann::json;

// A notification admin.
Sender Admin(const std::string& identity) { return Sender{identity, {}, /*admin=*/true}; }
// A caller with no role.
Sender User(const std::string& identity, std::vector<std::string> groups = {}) {
  return Sender{identity, std::move(groups)};
}

class NotifyTest : public ::testing::Test {
 protected:
  uint64_t AddReceiver(Labels labels, const std::string& type = "http") {
    Receiver r;
    r.name = "r";
    r.type = type;
    r.labels = std::move(labels);
    return *receivers_.Create(r, "");
  }
  uint64_t AddSubscription(Labels match, std::vector<SubscriptionReceiver> rs,
                           std::vector<std::string> allowed_senders = {}) {
    Subscription s;
    s.urn = "s" + std::to_string(subs_.rows.size());
    s.match = std::move(match);
    s.receivers = std::move(rs);
    s.allowed_senders = std::move(allowed_senders);
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
  // notification.senders: [ci@x.com], sender_groups: [deployers]
  NotificationService with_senders_{&receivers_, &subs_, &templates_, &queue_,
                                    QueuePolicy{}, nullptr,
                                    SendPolicy{{"ci@x.com"}, {"deployers"}}};
  AlertService alert_service_{&notifications_, &alerts_};
};

TEST_F(NotifyTest, SelectorsUnionAndSubscriptions) {
  uint64_t a = AddReceiver({{"team", "x"}, {"env", "prod"}});
  uint64_t b = AddReceiver({{"team", "x"}, {"env", "dev"}});
  uint64_t c = AddReceiver({{"team", "y"}});
  NotificationRequest req;
  req.data = json::object();
  req.receivers = {json{{"team", "x"}, {"env", "prod"}}, json{{"id", c}}};
  auto id = notifications_.Post(req, "", Admin("a@x.com"));
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
  auto id2 = notifications_.Post(by_labels, "", Admin("a@x.com"));
  EXPECT_EQ(ReceiversOf(*id2), (std::set<uint64_t>{a, b}));
}

TEST_F(NotifyTest, ErrorsAndIdempotency) {
  AddReceiver({{"team", "x"}});
  NotificationRequest req;
  req.receivers = {json{{"team", "x"}}};
  EXPECT_EQ(notifications_.Post(req, "", Admin("a@x.com")).status().code(), absl::StatusCode::kInvalidArgument);
  req.data = json::object();
  req.template_name = "missing";
  EXPECT_EQ(notifications_.Post(req, "", Admin("a@x.com")).status().code(), absl::StatusCode::kNotFound);
  req.template_name = "";
  req.receivers = {json{{"team", "nobody"}}};
  EXPECT_EQ(notifications_.Post(req, "", Admin("a@x.com")).status().code(), absl::StatusCode::kNotFound);
  req.receivers = {};
  EXPECT_EQ(notifications_.Post(req, "", Admin("a@x.com")).status().code(), absl::StatusCode::kInvalidArgument);

  req.receivers = {json{{"team", "x"}}};
  auto first = notifications_.Post(req, "key-1", Admin("a@x.com"));
  auto again = notifications_.Post(req, "key-1", Admin("a@x.com"));
  EXPECT_EQ(*first, *again);
  EXPECT_EQ(queue_.messages.size(), 1u);
  EXPECT_NE(*notifications_.Post(req, "key-2", Admin("a@x.com")), *first);
  // The same key from another caller is another notification.
  auto other = notifications_.Post(req, "key-1", Admin("b@x.com"));
  EXPECT_NE(*other, *first);
  EXPECT_EQ(*notifications_.Post(req, "key-1", Admin("b@x.com")), *other);
  EXPECT_EQ(queue_.messages.size(), 3u);
}

// Security review round 2, F-M1: sending is a role.
TEST_F(NotifyTest, SendingIsForAdminsAndConfiguredSendersOnly) {
  AddReceiver({{"team", "x"}});
  NotificationRequest req;
  req.data = json::object();
  req.receivers = {json{{"team", "x"}}};
  // Default (nothing configured): notification admins only.
  auto eve = notifications_.Post(req, "", User("eve@x.com"));
  EXPECT_EQ(eve.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(eve.status().message().find("notification.senders"), std::string::npos) << eve.status();
  EXPECT_TRUE(notifications_.Post(req, "", Admin("root@x.com")).ok());
  // Configured identities and groups.
  EXPECT_TRUE(with_senders_.Post(req, "", User("ci@x.com")).ok());
  EXPECT_TRUE(with_senders_.Post(req, "", User("dev@x.com", {"staff", "deployers"})).ok());
  EXPECT_EQ(with_senders_.Post(req, "", User("dev@x.com", {"staff"})).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(with_senders_.Post(req, "", User("eve@x.com")).status().code(),
            absl::StatusCode::kPermissionDenied);
  // The development wildcard.
  NotificationService anyone{&receivers_,   &subs_,  &templates_,
                             &queue_,       QueuePolicy{}, nullptr,
                             SendPolicy{{kAnySender}, {}}};
  EXPECT_TRUE(anyone.Post(req, "", User("eve@x.com")).ok());
  // The system sender needs no role; a caller cannot claim to be it.
  EXPECT_TRUE(notifications_.Post(req, "", Sender::System("system:sluice-access")).ok());
  auto claimed = anyone.Post(req, "", Admin("system:sluice-access"));
  EXPECT_EQ(claimed.status().code(), absl::StatusCode::kPermissionDenied) << claimed.status();
  // Only the accepted ones were stored.
  EXPECT_EQ(queue_.notifications.size(), 5u);
}

// Security review R3-H1: rendering reaches the Go template engine and its
// YAML step, so it needs a role where sending would.
TEST_F(NotifyTest, RenderingBuiltinAndGoTemplatesNeedsARole) {
  Template slack = *FindBuiltinTemplate("system-alert-slack");
  Template access;
  access.name = "access-appeal-created";
  Template go;
  go.name = "deploy";
  go.engine = kEngineGo;
  Template mustache;
  mustache.name = "plain";
  mustache.engine = kEngineMustache;
  // Built-in and access templates: notification admins only.
  for (const Template* t : {&slack, &access}) {
    auto st = with_senders_.CheckRender(*t, User("ci@x.com"));
    EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied) << t->name;
    EXPECT_NE(st.message().find(t->name), std::string::npos) << st;
    EXPECT_TRUE(with_senders_.CheckRender(*t, Admin("root@x.com")).ok()) << t->name;
  }
  // Go templates: those who may send.
  auto eve = with_senders_.CheckRender(go, User("eve@x.com"));
  EXPECT_EQ(eve.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(eve.message().find("notification.senders"), std::string::npos) << eve;
  EXPECT_TRUE(with_senders_.CheckRender(go, User("ci@x.com")).ok());
  EXPECT_TRUE(with_senders_.CheckRender(go, User("dev@x.com", {"deployers"})).ok());
  EXPECT_TRUE(with_senders_.CheckRender(go, Admin("root@x.com")).ok());
  // Mustache templates: every authenticated caller, as before.
  EXPECT_TRUE(with_senders_.CheckRender(mustache, User("eve@x.com")).ok());
  // The server's own modules render anything.
  EXPECT_TRUE(notifications_.CheckRender(slack, Sender::System("system:sluice-access")).ok());
}

TEST_F(NotifyTest, AccessAndSystemTemplatesAndTheEventLabelAreTheSystemSenders) {
  AddReceiver({{"team", "x"}});
  NotificationRequest req;
  req.data = json::object();
  req.receivers = {json{{"team", "x"}}};
  for (const char* name : {"access-appeal-created", "system-alert-pagerduty", "access-custom"}) {
    req.template_name = name;
    for (const Sender& s : {Admin("root@x.com"), User("ci@x.com")}) {
      auto st = with_senders_.Post(req, "", s).status();
      EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied) << name;
      EXPECT_NE(st.message().find(absl::StrCat("template \"", name, "\"")), std::string::npos) << st;
    }
  }
  // The default template stays everyone's, by name or by omission.
  req.template_name = kDefaultTemplate;
  EXPECT_TRUE(with_senders_.Post(req, "", User("ci@x.com")).ok());
  req.template_name = "";
  EXPECT_TRUE(with_senders_.Post(req, "", User("ci@x.com")).ok());

  req.labels = {{"event", "appeal.approved"}};
  for (const Sender& s : {Admin("root@x.com"), User("ci@x.com")}) {
    auto st = with_senders_.Post(req, "", s).status();
    EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_NE(st.message().find("label \"event\""), std::string::npos) << st;
  }
  // What the access module sends.
  req.template_name = "access-appeal-approved";
  Template t;
  t.name = "access-appeal-approved";
  t.body = "{}";
  templates_.rows[t.name] = t;
  EXPECT_TRUE(with_senders_.Post(req, "", Sender::System("system:sluice-access")).ok());
}

TEST_F(NotifyTest, AllowedSendersNarrowListedSendersNotAdmins) {
  uint64_t open = AddReceiver({{"team", "x"}});
  Receiver pager;
  pager.name = "sre-pager";
  pager.type = "pagerduty";
  pager.labels = {{"team", "sre"}};
  pager.allowed_senders = {"ci@x.com", "group:oncall"};
  uint64_t narrow = *receivers_.Create(pager, "");

  NotificationRequest direct;
  direct.data = json::object();
  direct.receivers = {json{{"team", "sre"}}};
  auto denied = with_senders_.Post(direct, "", User("dev@x.com", {"deployers"}));
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(denied.status().message().find(absl::StrCat("receiver ", narrow, " (sre-pager)")),
            std::string::npos)
      << denied.status();
  EXPECT_TRUE(with_senders_.Post(direct, "", User("ci@x.com")).ok());
  EXPECT_TRUE(with_senders_.Post(direct, "", User("dev@x.com", {"deployers", "oncall"})).ok());
  // Selectors reaching both: one refusal refuses the whole notification.
  direct.receivers = {json{{"team", "x"}}, json{{"team", "sre"}}};
  size_t before = queue_.notifications.size();
  EXPECT_EQ(with_senders_.Post(direct, "", User("dev@x.com", {"deployers"})).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(queue_.notifications.size(), before);
  // Admins and the system sender are never narrowed.
  EXPECT_TRUE(with_senders_.Post(direct, "", Admin("root@x.com")).ok());
  EXPECT_TRUE(with_senders_.Post(direct, "", Sender::System("system:sluice-access")).ok());

  // Through a subscription: its own list, and its receivers' lists.
  AddSubscription({{"svc", "api"}}, {{open, json::object()}}, {"group:api-team"});
  AddSubscription({{"svc", "db"}}, {{narrow, json::object()}});
  NotificationRequest by_labels;
  by_labels.data = json::object();
  by_labels.labels = {{"svc", "api"}};
  auto sub_denied = with_senders_.Post(by_labels, "", User("ci@x.com"));
  EXPECT_EQ(sub_denied.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(sub_denied.status().message().find("subscription s0"), std::string::npos)
      << sub_denied.status();
  EXPECT_TRUE(with_senders_.Post(by_labels, "", User("dev@x.com", {"deployers", "api-team"})).ok());
  by_labels.labels = {{"svc", "db"}};
  auto via = with_senders_.Post(by_labels, "", User("dev@x.com", {"deployers"}));
  EXPECT_EQ(via.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(via.status().message().find("(through subscription s1)"), std::string::npos)
      << via.status();
  EXPECT_TRUE(with_senders_.Post(by_labels, "", User("ci@x.com")).ok());
  EXPECT_TRUE(with_senders_.Post(by_labels, "", Admin("root@x.com")).ok());
}

// Security review R3-L4: a slack_channel child sends with its parent's
// token, so the parent's allowed_senders narrow the child too.
TEST_F(NotifyTest, AParentsAllowedSendersCoverItsChildren) {
  Receiver parent;
  parent.name = "exec-slack";
  parent.type = "slack";
  parent.allowed_senders = {"alice@x.com"};
  uint64_t parent_id = *receivers_.Create(parent, "");
  Receiver child;
  child.name = "any-channel";
  child.type = "slack_channel";
  child.parent_id = parent_id;
  child.labels = {{"room", "board"}};
  uint64_t child_id = *receivers_.Create(child, "");
  NotificationService senders{&receivers_, &subs_, &templates_, &queue_, QueuePolicy{}, nullptr,
                              SendPolicy{{"alice@x.com", "bob@x.com"}, {}}};
  NotificationRequest req;
  req.data = json::object();
  req.receivers = {json{{"room", "board"}}};
  auto bob = senders.Post(req, "", User("bob@x.com"));
  EXPECT_EQ(bob.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(bob.status().message().find(absl::StrCat("receiver ", parent_id, " (exec-slack)")), std::string::npos)
      << bob.status();
  EXPECT_TRUE(senders.Post(req, "", User("alice@x.com")).ok());
  EXPECT_TRUE(senders.Post(req, "", Admin("root@x.com")).ok());
  // Through a subscription as well.
  Subscription sub;
  sub.urn = "board";
  sub.match = {{"room", "board"}};
  sub.receivers = {SubscriptionReceiver{child_id, json::object()}};
  ASSERT_TRUE(subs_.Create(sub, "").ok());
  NotificationRequest by_labels;
  by_labels.data = json::object();
  by_labels.labels = {{"room", "board"}};
  EXPECT_EQ(senders.Post(by_labels, "", User("bob@x.com")).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(senders.Post(by_labels, "", User("alice@x.com")).ok());
}

TEST_F(NotifyTest, AllowedSendersEntriesAreValidated) {
  EXPECT_TRUE(ValidateAllowedSenders({}, "allowed_senders").ok());
  EXPECT_TRUE(ValidateAllowedSenders({"a@x.com", "group:sre", "svc-account"}, "f").ok());
  for (const char* bad : {"", "*", "group:", "a b@x.com", "a\n@x.com"}) {
    auto st = ValidateAllowedSenders({"ok@x.com", bad}, "allowed_senders");
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("allowed_senders[1]"), std::string::npos) << st;
  }
  EXPECT_TRUE(AllowedSendersAdmit({}, User("anyone@x.com")));
  EXPECT_FALSE(AllowedSendersAdmit({"group:a@x.com"}, User("a@x.com")));  // a group, not an identity
  EXPECT_TRUE(AllowedSendersAdmit({"group:sre"}, User("a@x.com", {"sre"})));
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
