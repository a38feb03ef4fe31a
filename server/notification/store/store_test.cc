// Repository tests on a real PostgreSQL (fresh database per test).
#include "server/notification/store/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "common/db/testing/test_database.h"

namespace sluice::db {
const MigrationSet& CoreMigrations();
}  // namespace sluice::db

namespace sluice::notification {
namespace {

using nlohmann::json;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = db::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    auto pool = db::Pool::Create(db_->dsn(), 4);
    ASSERT_TRUE(pool.ok()) << pool.status();
    pool_ = std::move(*pool);
    auto applied = db::Migrate(*pool_, {db::CoreMigrations(), db::NotificationMigrations()});
    ASSERT_TRUE(applied.ok()) << applied.status();
  }
  uint64_t AddReceiver(Labels labels) {
    Receiver r;
    r.name = "r";
    r.type = "http";
    r.labels = std::move(labels);
    r.configurations = {{"url", "http://x"}};
    return *receivers_.Create(r, "t@example.com");
  }
  uint64_t Enqueue(int n_messages, absl::Time expire = absl::Now() + absl::Hours(1),
                   const std::string& key = "") {
    uint64_t rid = AddReceiver({});
    Notification n;
    n.template_name = "system-default";
    n.data = {{"k", "v"}};
    n.idempotency_key = key;
    std::vector<Delivery> ds(n_messages, Delivery{rid, "http", json::object()});
    return *queue_.Create(n, ds, 3, expire);
  }
  std::unique_ptr<db::TestDatabase> db_;
  std::unique_ptr<db::Pool> pool_;
  PostgresReceiverRepository receivers_{nullptr};
  PostgresSubscriptionRepository subs_{nullptr};
  PostgresTemplateRepository templates_{nullptr};
  PostgresNotificationRepository queue_{nullptr};
  PostgresAlertRepository alerts_{nullptr};
  void Bind() {
    receivers_ = PostgresReceiverRepository(pool_.get());
    subs_ = PostgresSubscriptionRepository(pool_.get());
    templates_ = PostgresTemplateRepository(pool_.get());
    queue_ = PostgresNotificationRepository(pool_.get());
    alerts_ = PostgresAlertRepository(pool_.get());
  }
};

TEST_F(StoreTest, ReceiverRoundTripLabelFilterAndDeleteGuard) {
  Bind();
  uint64_t a = AddReceiver({{"team", "x"}, {"env", "prod"}});
  uint64_t b = AddReceiver({{"team", "x"}});
  auto got = receivers_.Get(a);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->labels.at("env"), "prod");
  EXPECT_EQ(got->configurations["url"], "http://x");
  EXPECT_EQ(receivers_.List({{"team", "x"}}, nullptr, nullptr)->size(), 2u);
  EXPECT_EQ(receivers_.List({{"env", "prod"}}, nullptr, nullptr)->size(), 1u);
  // The implicit labels filter too, and pages count every match (review L2).
  EXPECT_EQ(receivers_.List({{"id", std::to_string(b)}}, nullptr, nullptr)->size(), 1u);
  Page first{1, 0}, second{1, 1};
  int total = 0;
  auto p1 = receivers_.List({{"team", "x"}}, &first, &total);
  ASSERT_EQ(p1->size(), 1u);
  EXPECT_EQ(total, 2);
  auto p2 = receivers_.List({{"team", "x"}}, &second, &total);
  ASSERT_EQ(p2->size(), 1u);
  EXPECT_NE((*p1)[0].id, (*p2)[0].id);
  EXPECT_EQ(receivers_.Get(999).status().code(), absl::StatusCode::kNotFound);
  auto ids = [&](std::vector<Labels> sels) {
    std::set<uint64_t> out;
    auto list = receivers_.MatchAny(sels);
    for (const auto& r : *list) out.insert(r.id);
    return out;
  };
  EXPECT_EQ(ids({{{"team", "x"}, {"env", "prod"}}}), (std::set<uint64_t>{a}));
  EXPECT_EQ(ids({{{"id", std::to_string(b)}}, {{"env", "prod"}}}), (std::set<uint64_t>{a, b}));
  EXPECT_EQ(ids({{{"type", "http"}, {"team", "x"}}}), (std::set<uint64_t>{a, b}));
  EXPECT_TRUE(ids({{{"type", "slack"}}}).empty());

  Subscription s;
  s.urn = "uses-b";
  s.receivers = {{b, {{"channel", "c"}}}};
  auto sid = subs_.Create(s, "t");
  ASSERT_TRUE(sid.ok()) << sid.status();
  absl::Status del = receivers_.Delete(b, "t");
  EXPECT_EQ(del.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(del.message().find("uses-b"), std::string::npos);
  EXPECT_EQ(subs_.Create(s, "t").status().code(), absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(subs_.Delete(*sid, "t").ok());
  EXPECT_TRUE(receivers_.Delete(b, "t").ok());
  EXPECT_EQ(receivers_.Delete(b, "t").code(), absl::StatusCode::kNotFound);
}

// A slack_channel/lark_channel receiver takes its token from its parent
// (parent_id): deleting the parent would leave it unable to send. Siren
// deletes the parent anyway; Sluice refuses, naming the children.
TEST_F(StoreTest, AParentReceiverIsNotDeletedWhileChildrenUseIt) {
  Bind();
  uint64_t parent = AddReceiver({});
  Receiver child;
  child.name = "c";
  child.type = "http";
  child.configurations = {{"url", "http://x"}};
  child.parent_id = parent;
  auto cid = receivers_.Create(child, "t@example.com");
  ASSERT_TRUE(cid.ok()) << cid.status();
  absl::Status del = receivers_.Delete(parent, "t");
  EXPECT_EQ(del.code(), absl::StatusCode::kFailedPrecondition) << del;
  EXPECT_NE(del.message().find(std::to_string(*cid)), std::string::npos) << del;
  EXPECT_TRUE(receivers_.Get(parent).ok());
  ASSERT_TRUE(receivers_.Delete(*cid, "t").ok());
  EXPECT_TRUE(receivers_.Delete(parent, "t").ok());
}

// Security review round 2, F-M1: allowed_senders are stored, read, replaced.
TEST_F(StoreTest, AllowedSendersRoundTrip) {
  Bind();
  uint64_t id = AddReceiver({});
  EXPECT_TRUE(receivers_.Get(id)->allowed_senders.empty());
  Receiver r = *receivers_.Get(id);
  r.allowed_senders = {"ci@x.com", "group:sre"};
  ASSERT_TRUE(receivers_.Update(r, "t").ok());
  EXPECT_EQ(receivers_.Get(id)->allowed_senders, (std::vector<std::string>{"ci@x.com", "group:sre"}));
  EXPECT_EQ(receivers_.MatchAny(std::vector<Labels>{Labels{}})->at(0).allowed_senders, r.allowed_senders);
  r.allowed_senders = {};
  ASSERT_TRUE(receivers_.Update(r, "t").ok());
  EXPECT_TRUE(receivers_.Get(id)->allowed_senders.empty());

  Subscription s;
  s.urn = "narrow";
  s.receivers = {{id, json::object()}};
  s.allowed_senders = {"bot@x.com"};
  auto sid = subs_.Create(s, "t");
  ASSERT_TRUE(sid.ok()) << sid.status();
  EXPECT_EQ(subs_.Get(*sid)->allowed_senders, (std::vector<std::string>{"bot@x.com"}));
  s.id = *sid;
  s.allowed_senders = {"bot@x.com", "group:deployers"};
  ASSERT_TRUE(subs_.Update(s, "t").ok());
  EXPECT_EQ(subs_.List(0, nullptr, nullptr, nullptr)->at(0).allowed_senders, s.allowed_senders);
}

TEST_F(StoreTest, SubscriptionMatchUsesContainment) {
  Bind();
  uint64_t r = AddReceiver({});
  auto make = [&](const std::string& urn, Labels match, uint64_t ns) {
    Subscription s;
    s.urn = urn;
    s.match = std::move(match);
    s.namespace_id = ns;
    s.receivers = {{r, json::object()}};
    return *subs_.Create(s, "t");
  };
  make("all", {}, 0);
  make("team", {{"team", "x"}}, 1);
  make("team-sev", {{"team", "x"}, {"sev", "high"}}, 1);
  make("other", {{"team", "y"}}, 2);
  auto urns = [&](uint64_t ns, const Labels* l) {
    std::set<std::string> out;
    auto list = subs_.List(ns, l, nullptr, nullptr);
    for (const auto& s : *list) out.insert(s.urn);
    return out;
  };
  Labels labels = {{"team", "x"}, {"region", "eu"}};
  EXPECT_EQ(urns(0, &labels), (std::set<std::string>{"all", "team"}));
  Labels high = {{"team", "x"}, {"sev", "high"}};
  EXPECT_EQ(urns(0, &high), (std::set<std::string>{"all", "team", "team-sev"}));
  EXPECT_EQ(urns(1, nullptr), (std::set<std::string>{"team", "team-sev"}));
  EXPECT_EQ(urns(0, nullptr).size(), 4u);
  Page page{2, 1};
  int total = 0;
  auto paged = subs_.List(0, nullptr, &page, &total);
  EXPECT_EQ(total, 4);
  ASSERT_EQ(paged->size(), 2u);
  EXPECT_EQ((*paged)[0].receivers.size(), 1u);  // receivers loaded for the page
  auto one = subs_.List(2, nullptr, nullptr, nullptr);
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].receivers.at(0).id, r);
}

TEST_F(StoreTest, SirenSubscriptionFieldsAndFilters) {
  Bind();
  uint64_t r1 = AddReceiver({});
  uint64_t r2 = AddReceiver({});
  Subscription s;
  s.urn = "siren";
  s.match = {{"severity", "CRITICAL"}, {"environment", "production"}};
  s.receivers = {{r1, json::object(), {{"route", "primary"}}}, {r2, json::object(), {{"route", "backup"}}}};
  s.metadata = {{"owner", "team-a"}, {"tier", 1}};
  s.created_by = "dev@x.com";
  s.updated_by = "dev@x.com";
  auto sid = subs_.Create(s, "t");
  ASSERT_TRUE(sid.ok()) << sid.status();
  auto got = subs_.Get(*sid);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->metadata, s.metadata);
  EXPECT_EQ(got->created_by, "dev@x.com");
  ASSERT_EQ(got->receivers.size(), 2u);
  EXPECT_EQ(got->receivers[1].labels, (Labels{{"route", "backup"}}));
  absl::Time added = got->receivers[0].created_at;

  // An update keeps created_by and the relations' creation times.
  Subscription u = *got;
  u.created_by = "someone-else";
  u.updated_by = "ops@x.com";
  ASSERT_TRUE(subs_.Update(u, "t").ok());
  got = subs_.Get(*sid);
  EXPECT_EQ(got->created_by, "dev@x.com");
  EXPECT_EQ(got->updated_by, "ops@x.com");
  EXPECT_EQ(got->receivers[0].created_at, added);

  auto count = [&](const SubscriptionFilter& f) { return subs_.List(f, nullptr, nullptr)->size(); };
  SubscriptionFilter f;
  f.match = {{"severity", "CRITICAL"}};  // Siren's match: ⊇
  EXPECT_EQ(count(f), 1u);
  f.match = {{"severity", "CRITICAL"}, {"team", "x"}};
  EXPECT_EQ(count(f), 0u);
  f = {};
  f.notification_match = Labels{{"severity", "CRITICAL"}};  // ⊆
  EXPECT_EQ(count(f), 0u);
  f.notification_match = s.match;
  EXPECT_EQ(count(f), 1u);
  f = {};
  f.metadata = {{"owner", "team-a"}};
  EXPECT_EQ(count(f), 1u);
  f.metadata = {{"owner", "team-b"}};
  EXPECT_EQ(count(f), 0u);
  f = {};
  f.receiver_id = r2;
  f.receiver_labels = {{"route", "backup"}};
  EXPECT_EQ(count(f), 1u);
  f.receiver_labels = {{"route", "primary"}};  // r2's relation is not primary
  EXPECT_EQ(count(f), 0u);
}

TEST_F(StoreTest, TemplatesUpsertAndTagFilter) {
  Bind();
  Template t;
  t.name = "a";
  t.body = "{}";
  t.tags = {"x", "y"};
  t.variables = {{"v", "string", "d", "desc"}};
  ASSERT_TRUE(templates_.Upsert(t, "t").ok());
  t.body = "{\"v\": 1}";
  ASSERT_TRUE(templates_.Upsert(t, "t").ok());
  auto got = templates_.Get("a");
  EXPECT_EQ(got->body, "{\"v\": 1}");
  EXPECT_EQ(got->variables.at(0).default_value, "d");
  EXPECT_EQ(got->engine, "mustache");  // the default (migration 0010)
  t.engine = "go";
  t.body = "- receiver_type: slack\n  content: 'text: x'\n";
  ASSERT_TRUE(templates_.Upsert(t, "t").ok());
  EXPECT_EQ(templates_.Get("a")->engine, "go");
  EXPECT_EQ(templates_.List("y")->at(0).engine, "go");
  EXPECT_EQ(templates_.List("z")->size(), 0u);
  EXPECT_TRUE(templates_.Delete("a", "t").ok());
  EXPECT_EQ(templates_.Get("a").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(StoreTest, IdempotencyKeyReturnsFirstNotification) {
  Bind();
  uint64_t first = Enqueue(2, absl::Now() + absl::Hours(1), "k");
  uint64_t again = Enqueue(2, absl::Now() + absl::Hours(1), "k");
  EXPECT_EQ(first, again);
  EXPECT_EQ(queue_.ListMessages(first)->size(), 2u);
  EXPECT_EQ(*queue_.FindByIdempotencyKey("k"), first);
  EXPECT_EQ(*queue_.FindByIdempotencyKey("other"), 0u);
  EXPECT_EQ(queue_.ListMessages(12345).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(StoreTest, ListNotificationsFiltersNewestFirst) {
  Bind();
  uint64_t rid = AddReceiver({});
  auto post = [&](const std::string& by, const std::string& tmpl, Labels labels,
                  const std::string& source) {
    Notification n;
    n.template_name = tmpl;
    n.data = {{"by", by}};
    n.labels = std::move(labels);
    n.source = source;
    n.created_by = by;
    return *queue_.Create(n, {Delivery{rid, "http", json::object()}}, 3, absl::Now() + absl::Hours(1));
  };
  uint64_t a = post("alice", "system-default", {{"env", "prod"}}, "api");
  uint64_t b = post("bob", "system-default", {{"env", "prod"}, {"team", "x"}}, "api");
  uint64_t c = post("alertmanager:cortex/1", "system-alert", {{"env", "prod"}}, "alert");
  auto ids = [&](NotificationFilter f, int limit = 100) {
    std::vector<uint64_t> out;
    auto list = queue_.ListNotifications(f, limit);  // kept alive over the loop
    for (const auto& n : *list) out.push_back(n.id);
    return out;
  };
  EXPECT_EQ(ids({}), (std::vector<uint64_t>{c, b, a}));
  EXPECT_EQ(ids({}, 2), (std::vector<uint64_t>{c, b}));
  EXPECT_EQ(ids({"alice", "", "", {}}), (std::vector<uint64_t>{a}));
  EXPECT_EQ(ids({"", "system-alert", "", {}}), (std::vector<uint64_t>{c}));
  EXPECT_EQ(ids({"", "", "api", {{"team", "x"}}}), (std::vector<uint64_t>{b}));
  auto one = queue_.ListNotifications({"alice", "", "", {}}, 10);
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].data, (json{{"by", "alice"}}));
  EXPECT_EQ((*one)[0].labels, (Labels{{"env", "prod"}}));
}

TEST_F(StoreTest, ConcurrentClaimsNeverOverlap) {
  Bind();
  uint64_t n = Enqueue(40);
  std::vector<std::vector<uint64_t>> got(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      while (true) {
        auto batch = queue_.Claim(3, absl::Seconds(60));
        if (!batch.ok() || batch->empty()) return;
        for (const auto& c : *batch) got[i].push_back(c.message.id);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<uint64_t> all;
  size_t total = 0;
  for (const auto& g : got) {
    total += g.size();
    all.insert(g.begin(), g.end());
  }
  EXPECT_EQ(total, 40u);
  EXPECT_EQ(all.size(), 40u);
  auto messages = queue_.ListMessages(n);
  for (const Message& m : *messages) {
    EXPECT_EQ(m.status, kPending);
    EXPECT_EQ(m.try_count, 1);
  }
}

TEST_F(StoreTest, ClaimCarriesEverythingAndOutcomesAreRecorded) {
  Bind();
  Template t;
  t.name = "mine";
  t.body = R"({"x": "{{k}}"})";
  ASSERT_TRUE(templates_.Upsert(t, "t").ok());
  uint64_t rid = AddReceiver({});
  Notification n;
  n.template_name = "mine";
  n.data = {{"k", "v"}};
  uint64_t nid = *queue_.Create(n, {{rid, "http", {{"url", "http://override"}}}}, 3,
                                absl::Now() + absl::Hours(1));
  auto batch = queue_.Claim(10, absl::Seconds(60));
  ASSERT_EQ(batch->size(), 1u);
  const ClaimedMessage& c = (*batch)[0];
  EXPECT_TRUE(c.receiver_exists);
  EXPECT_EQ(c.receiver_config["url"], "http://x");
  EXPECT_EQ(c.config_override["url"], "http://override");
  EXPECT_EQ(c.data["k"], "v");
  ASSERT_TRUE(c.user_template.has_value());
  EXPECT_EQ(c.user_template->body, t.body);
  EXPECT_EQ(c.user_template->engine, "mustache");

  EXPECT_FALSE(c.lease.empty());

  // Retry in the future: not claimable now. The retry ended the claim.
  ASSERT_TRUE(queue_.MarkRetry(c.message.id, c.lease, "HTTP 503", absl::Now() + absl::Hours(1)).ok());
  EXPECT_TRUE(queue_.Claim(10, absl::Seconds(60))->empty());
  Message m = (*queue_.ListMessages(nid))[0];
  EXPECT_EQ(m.status, kEnqueued);
  EXPECT_EQ(m.last_error, "HTTP 503");
  EXPECT_EQ(queue_.MarkFailed(c.message.id, c.lease, "HTTP 400").code(), absl::StatusCode::kAborted);
  EXPECT_EQ((*queue_.ListMessages(nid))[0].status, kEnqueued);

  // A failure is recorded by the claim that holds the message.
  uint64_t n2 = Enqueue(1);
  auto b2 = queue_.Claim(10, absl::Seconds(60));
  ASSERT_EQ(b2->size(), 1u);
  ASSERT_TRUE(queue_.MarkFailed((*b2)[0].message.id, (*b2)[0].lease, "HTTP 400").ok());
  EXPECT_EQ((*queue_.ListMessages(n2))[0].status, kFailed);
  EXPECT_EQ((*queue_.ListMessages(n2))[0].last_error, "HTTP 400");
}

// Review M5: a send that outlasts its lease is claimed and sent again; the
// late outcome of the first claim must not overwrite the second's.
TEST_F(StoreTest, OnlyTheLeaseHolderRecordsAnOutcome) {
  Bind();
  uint64_t n = Enqueue(1);
  auto first = queue_.Claim(10, absl::Milliseconds(1));
  ASSERT_EQ(first->size(), 1u);
  absl::SleepFor(absl::Milliseconds(50));
  auto second = queue_.Claim(10, absl::Seconds(60));
  ASSERT_EQ(second->size(), 1u);
  const ClaimedMessage& a = (*first)[0];
  const ClaimedMessage& b = (*second)[0];
  ASSERT_EQ(a.message.id, b.message.id);
  EXPECT_NE(a.lease, b.lease);

  // While the second claim holds it, the first cannot record anything.
  EXPECT_EQ(queue_.MarkPublished(a.message.id, a.lease).code(), absl::StatusCode::kAborted);
  ASSERT_TRUE(queue_.MarkPublished(b.message.id, b.lease).ok());
  // The late retry of the first claim must not flip `published` back.
  EXPECT_EQ(queue_.MarkRetry(a.message.id, a.lease, "HTTP 503", absl::Now()).code(),
            absl::StatusCode::kAborted);
  EXPECT_EQ(queue_.MarkFailed(a.message.id, a.lease, "x").code(), absl::StatusCode::kAborted);
  EXPECT_EQ(queue_.Release(a.message.id, a.lease).code(), absl::StatusCode::kAborted);
  Message m = (*queue_.ListMessages(n))[0];
  EXPECT_EQ(m.status, kPublished);
  EXPECT_EQ(m.try_count, 2);
  EXPECT_TRUE(queue_.Claim(10, absl::Seconds(60))->empty());  // not sent a third time
  // A finished claim cannot record twice either.
  EXPECT_EQ(queue_.MarkRetry(b.message.id, b.lease, "x", absl::Now()).code(),
            absl::StatusCode::kAborted);
  EXPECT_EQ((*queue_.ListMessages(n))[0].status, kPublished);

  // A lease that ran out on the last try is failed by ExpireDue; the send
  // still finishing on that claim may then record that it was published.
  uint64_t last = Enqueue(1);
  ClaimedMessage held;
  for (int i = 0; i < 3; ++i) {
    auto c = queue_.Claim(10, absl::Milliseconds(1));
    ASSERT_EQ(c->size(), 1u);
    held = (*c)[0];
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(*queue_.ExpireDue(absl::Now()), 0);
  EXPECT_EQ((*queue_.ListMessages(last))[0].status, kFailed);
  EXPECT_EQ(queue_.MarkRetry(held.message.id, held.lease, "x", absl::Now()).code(),
            absl::StatusCode::kAborted);
  ASSERT_TRUE(queue_.MarkPublished(held.message.id, held.lease).ok());
  EXPECT_EQ((*queue_.ListMessages(last))[0].status, kPublished);
}

TEST_F(StoreTest, ExpiredLeaseIsReclaimedAndOldMessagesExpire) {
  Bind();
  uint64_t n = Enqueue(1);
  ASSERT_EQ(queue_.Claim(10, absl::Milliseconds(1))->size(), 1u);
  absl::SleepFor(absl::Milliseconds(50));
  auto again = queue_.Claim(10, absl::Seconds(60));  // the first worker "crashed"
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].message.try_count, 2);
  ASSERT_TRUE(queue_.MarkPublished((*again)[0].message.id, (*again)[0].lease).ok());
  EXPECT_EQ((*queue_.ListMessages(n))[0].status, kPublished);

  // A stale lease on the last try is failed, not claimed a 4th time.
  uint64_t last = Enqueue(1);
  for (int i = 0; i < 3; ++i) {
    auto c = queue_.Claim(10, absl::Milliseconds(1));
    ASSERT_EQ(c->size(), 1u) << i;
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(*queue_.ExpireDue(absl::Now()), 0);
  EXPECT_TRUE(queue_.Claim(10, absl::Seconds(60))->empty());
  Message lost = (*queue_.ListMessages(last))[0];
  EXPECT_EQ(lost.status, kFailed);
  EXPECT_EQ(lost.try_count, 3);

  // Release (shutdown) puts a claimed message back as it was.
  uint64_t r = Enqueue(1);
  auto claimed = queue_.Claim(10, absl::Seconds(60));
  ASSERT_EQ(claimed->size(), 1u);
  ASSERT_TRUE(queue_.Release((*claimed)[0].message.id, (*claimed)[0].lease).ok());
  Message back = (*queue_.ListMessages(r))[0];
  EXPECT_EQ(back.status, kEnqueued);
  EXPECT_EQ(back.try_count, 0);

  uint64_t old = Enqueue(2, absl::Now() - absl::Seconds(1));
  EXPECT_EQ(*queue_.ExpireDue(absl::Now()), 2);
  auto old_messages = queue_.ListMessages(old);
  for (const Message& m : *old_messages) {
    EXPECT_EQ(m.status, kExpired);
    EXPECT_EQ(m.last_error, "expired before delivery");
  }
}

TEST_F(StoreTest, DeletePublishedRemovesOnlyOldPublishedMessages) {
  Bind();
  uint64_t n = Enqueue(3);
  auto claimed = queue_.Claim(2, absl::Seconds(60));
  ASSERT_EQ(claimed->size(), 2u);
  for (const ClaimedMessage& c : *claimed) ASSERT_TRUE(queue_.MarkPublished(c.message.id, c.lease).ok());
  long long old_id = static_cast<long long>((*claimed)[0].message.id);
  ASSERT_TRUE(pool_->Run([&](soci::session& sql) {
    sql << "UPDATE notification_messages SET updated_at = now() - interval '8 days' "
           "WHERE id = :id OR status = 'enqueued'",
        soci::use(old_id);
    return absl::OkStatus();
  }).ok());
  auto deleted = queue_.DeletePublished(absl::Now() - absl::Hours(168));
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 1);
  auto left = queue_.ListMessages(n);  // the notification itself stays
  ASSERT_TRUE(left.ok()) << left.status();
  ASSERT_EQ(left->size(), 2u);
  for (const Message& m : *left) EXPECT_NE(m.id, static_cast<uint64_t>(old_id));
  EXPECT_EQ(*queue_.DeletePublished(absl::Now() - absl::Hours(168)), 0);
}

// The alerts of alertmanager/<provider> with triggered_at in [from, to].
AlertFilter AlertsOf(const std::string& provider, absl::Time from = absl::InfinitePast(),
                     absl::Time to = absl::InfiniteFuture()) {
  AlertFilter f;
  f.provider_type = "alertmanager";
  f.provider_id = provider;
  f.from = from;
  f.to = to;
  return f;
}

// A firing alertmanager alert of provider "p" named X.
Alert FiringAlert(const std::string& fingerprint, int64_t starts_at) {
  Alert a;
  a.provider_type = "alertmanager";
  a.provider_id = "p";
  a.status = "firing";
  a.labels = {{"alertname", "X"}};
  a.starts_at = absl::FromUnixSeconds(starts_at);
  a.fingerprint = fingerprint;
  return a;
}

TEST_F(StoreTest, AlertsStoredAndFilteredByTime) {
  Bind();
  Alert a = FiringAlert("f1", 1000);
  Alert b = a;
  b.starts_at = absl::FromUnixSeconds(2000);
  b.ends_at = absl::FromUnixSeconds(2500);
  b.fingerprint = "f2";
  ASSERT_TRUE(alerts_.Insert({a, b}).ok());
  auto all = alerts_.List(AlertsOf("p"), Page{}, nullptr);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].fingerprint, "f2");  // newest first
  EXPECT_EQ(*(*all)[0].ends_at, absl::FromUnixSeconds(2500));
  EXPECT_FALSE((*all)[1].ends_at.has_value());
  EXPECT_EQ(alerts_.List(AlertsOf("p", absl::FromUnixSeconds(1500)), Page{}, nullptr)->size(),
            1u);
  EXPECT_EQ(alerts_.List(AlertsOf("q"), Page{}, nullptr)->size(), 0u);
}

TEST_F(StoreTest, ResentAlertUpdatesItsInstanceInsteadOfDuplicating) {
  Bind();
  Alert a = FiringAlert("f1", 1000);
  a.annotations = {{"summary", "first"}};
  ASSERT_TRUE(alerts_.Insert({a}).ok());
  ASSERT_TRUE(alerts_.Insert({a}).ok());  // repeat_interval resend
  Alert resolved = a;
  resolved.status = "resolved";
  resolved.ends_at = absl::FromUnixSeconds(1600);
  resolved.annotations = {{"summary", "over"}};
  ASSERT_TRUE(alerts_.Insert({resolved}).ok());
  Alert again = a;  // the same alert firing again later: a new instance
  again.starts_at = absl::FromUnixSeconds(5000);
  Alert other_provider = a;
  other_provider.provider_id = "q";
  Alert no_fingerprint = a;  // older senders: every post is stored
  no_fingerprint.fingerprint = "";
  ASSERT_TRUE(alerts_.Insert({again, other_provider, no_fingerprint, no_fingerprint}).ok());
  auto all = alerts_.List(AlertsOf("p"), Page{}, nullptr);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 4u);  // instance @5000, instance @1000, two without fingerprint
  EXPECT_EQ((*all)[0].starts_at, absl::FromUnixSeconds(5000));
  int resolved_rows = 0;
  for (const Alert& x : *all) {
    if (x.fingerprint == "f1" && x.starts_at == absl::FromUnixSeconds(1000)) {
      ++resolved_rows;
      EXPECT_EQ(x.status, "resolved");
      EXPECT_EQ(*x.ends_at, absl::FromUnixSeconds(1600));
      EXPECT_EQ(x.annotations.at("summary"), "over");
    }
  }
  EXPECT_EQ(resolved_rows, 1);
  EXPECT_EQ(alerts_.List(AlertsOf("q"), Page{}, nullptr)->size(), 1u);
}

}  // namespace
}  // namespace sluice::notification

namespace sluice::notification {
namespace {

// Migration 0002 on a database that already holds resent alerts: one row
// per instance survives (the newest), rows without a fingerprint stay.
TEST(AlertMigrationTest, ExistingDuplicatesCollapseToTheNewestRow) {
  auto db = db::TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  auto pool = db::Pool::Create((*db)->dsn(), 1);
  ASSERT_TRUE(pool.ok()) << pool.status();
  db::MigrationSet first = db::NotificationMigrations();
  first.migrations.erase(std::remove_if(first.migrations.begin(), first.migrations.end(),
                                        [](const db::Migration& m) { return m.version > 1; }),
                         first.migrations.end());
  ASSERT_TRUE(db::Migrate(**pool, {db::CoreMigrations(), first}).ok());
  ASSERT_TRUE((*pool)->Run([](soci::session& sql) {
                  for (const char* status : {"firing", "firing", "resolved"}) {
                    sql << "INSERT INTO alerts (provider_type, provider_id, status, starts_at, "
                           "fingerprint) VALUES ('alertmanager', 'p', :s, "
                           "to_timestamp(1000), 'f1')",
                        soci::use(std::string(status));
                  }
                  for (int i = 0; i < 2; ++i) {
                    sql << "INSERT INTO alerts (provider_type, provider_id, status, starts_at) "
                           "VALUES ('alertmanager', 'p', 'firing', to_timestamp(1000))";
                  }
                  return absl::OkStatus();
                }).ok());
  auto applied = db::Migrate(**pool, {db::CoreMigrations(), db::NotificationMigrations()});
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_GE(*applied, 1);
  PostgresAlertRepository alerts(pool->get());
  auto all = alerts.List(AlertsOf("p"), Page{}, nullptr);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);  // f1 once, two without a fingerprint
  int f1 = 0;
  for (const Alert& a : *all) {
    if (a.fingerprint != "f1") continue;
    ++f1;
    EXPECT_EQ(a.status, "resolved");  // the newest row was kept
  }
  EXPECT_EQ(f1, 1);
}

}  // namespace
}  // namespace sluice::notification
