#include "server/notification/core/delivery.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "server/notification/core/fakes.h"
#include "server/notification/core/notify.h"

namespace sluice::notification {
namespace {

using nlohmann::json;

class DeliveryTest : public ::testing::Test {
 protected:
  DeliveryTest() {
    auto p = std::make_unique<testing::ScriptedPlugin>();
    plugin_ = p.get();
    plugins_["scripted"] = std::move(p);
    queue_.receivers = &receivers_;
    queue_.templates = &templates_;
    Receiver r;
    r.name = "r";
    r.type = "scripted";
    r.id = *receivers_.NextId();
    r.configurations = {{"url", "u"},
                        {"token", *crypter_->Encrypt("plain-token", ReceiverPlace(r.id) + "/token")}};
    rid_ = *receivers_.Create(r, "");
  }
  uint64_t Enqueue(json data, std::string tmpl = "system-default", absl::Duration validity = absl::Hours(1)) {
    Notification n;
    n.template_name = tmpl;
    n.data = std::move(data);
    return *queue_.Create(n, {{rid_, "scripted", json::object()}}, 3, absl::Now() + validity);
  }
  Message Only(uint64_t nid) { return (*queue_.ListMessages(nid))[0]; }
  // Runs polls until nothing is due (backoff is zero in these tests).
  void Drain() {
    for (int i = 0; i < 10; ++i) (void)pool_.RunOnce();
  }

  ReceiverPlugins plugins_;
  testing::ScriptedPlugin* plugin_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  SecretCodec codec_{&plugins_, crypter_.get()};
  testing::FakeReceiverRepository receivers_;
  testing::FakeTemplateRepository templates_;
  testing::FakeNotificationRepository queue_;
  DeliveryOptions options_{1, 10, absl::Milliseconds(10), absl::Seconds(60), absl::ZeroDuration(),
                           absl::ZeroDuration()};
  DeliveryWorkerPool pool_{&queue_, &plugins_, &codec_, options_};
  uint64_t rid_ = 0;
};

TEST_F(DeliveryTest, PublishedWithDecryptedSecretsAndRenderedPayload) {
  uint64_t n = Enqueue({{"hello", "world"}});
  Drain();
  Message m = Only(n);
  EXPECT_EQ(m.status, kPublished);
  EXPECT_EQ(m.try_count, 1);
  ASSERT_EQ(plugin_->sent.size(), 1u);
  EXPECT_EQ(plugin_->sent[0].first["token"], "plain-token");
  EXPECT_EQ(plugin_->sent[0].second, json({{"hello", "world"}}));
}

// DeliveryOptions::decorate_payload sees every message's receiver, data and
// rendered payload before Send, and what it changes is what is sent; an
// exception in it fails only that message.
TEST_F(DeliveryTest, PayloadDecoratorChangesWhatIsSent) {
  struct Seen {
    std::string type;
    uint64_t id;
    json data, payload;
  };
  std::vector<Seen> seen;
  DeliveryOptions opts = options_;
  opts.decorate_payload = [&seen](absl::string_view type, uint64_t id, const json& data,
                                  json* payload) {
    seen.push_back({std::string(type), id, data, *payload});
    if (data.contains("boom")) throw std::runtime_error("decorator failed");
    (*payload)["blocks"] = json::array({{{"type", "actions"}}});
  };
  DeliveryWorkerPool pool{&queue_, &plugins_, &codec_, opts};
  uint64_t n = Enqueue({{"hello", "world"}});
  uint64_t bad = Enqueue({{"boom", 1}});
  for (int i = 0; i < 10; ++i) (void)pool.RunOnce();

  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].type, "scripted");
  EXPECT_EQ(seen[0].id, rid_);
  EXPECT_EQ(seen[0].data, json({{"hello", "world"}}));
  EXPECT_EQ(seen[0].payload, json({{"hello", "world"}}));  // as rendered
  EXPECT_EQ(Only(n).status, kPublished);
  ASSERT_EQ(plugin_->sent.size(), 1u);
  EXPECT_EQ(plugin_->sent[0].second,
            json({{"hello", "world"}, {"blocks", json::array({{{"type", "actions"}}})}}));
  EXPECT_EQ(Only(bad).status, kFailed);
  EXPECT_EQ(Only(bad).last_error, "internal error while delivering: decorator failed");
}

// A child type (slack_channel's shape): no secrets of its own, a
// "scripted" parent.
class ChildPlugin : public testing::ScriptedPlugin {
 public:
  std::string ParentType() const override { return "scripted"; }
  std::vector<std::string> SecretKeys() const override { return {}; }
  std::vector<std::string> DestinationKeys() const override { return {}; }
};

TEST_F(DeliveryTest, AChildSendsWithItsParentsSecretsAndDestinationWhateverItsOverride) {
  auto child_plugin = std::make_unique<ChildPlugin>();
  ChildPlugin* child = child_plugin.get();
  plugins_["child"] = std::move(child_plugin);
  Receiver r;
  r.name = "c";
  r.type = "child";
  r.parent_id = rid_;
  r.configurations = {{"channel_name", "alerts"}, {"url", "http://evil"}, {"extra", 1}};
  uint64_t cid = *receivers_.Create(r, "");
  Notification n;
  n.template_name = "system-default";
  n.data = {{"a", 1}};
  // The override tries to move the parent's token elsewhere too.
  uint64_t nid = *queue_.Create(
      n, {{cid, "child", json{{"url", "http://evil2"}, {"token", "forged"}}}}, 3,
      absl::Now() + absl::Hours(1));
  Drain();
  EXPECT_EQ(Only(nid).status, kPublished) << Only(nid).last_error;
  ASSERT_EQ(child->sent.size(), 1u);
  EXPECT_EQ(child->sent[0].first, json({{"channel_name", "alerts"},
                                        {"url", "u"},
                                        {"token", "plain-token"},
                                        {"extra", 1}}));

  // A deleted parent fails the child's messages, naming it.
  ASSERT_TRUE(receivers_.Delete(rid_, "").ok());
  uint64_t nid2 = *queue_.Create(n, {{cid, "child", json::object()}}, 3,
                                 absl::Now() + absl::Hours(1));
  Drain();
  EXPECT_EQ(Only(nid2).status, kFailed);
  EXPECT_EQ(Only(nid2).last_error, absl::StrCat("parent receiver ", rid_, " no longer exists"));
}

TEST_F(DeliveryTest, RetryableTwiceThenPublished) {
  plugin_->script = {absl::UnavailableError("HTTP 500"), absl::UnavailableError("HTTP 500")};
  uint64_t n = Enqueue({{"a", 1}});
  Drain();
  Message m = Only(n);
  EXPECT_EQ(m.status, kPublished);
  EXPECT_EQ(m.try_count, 3);
  EXPECT_EQ(pool_.stats().retried, 2);
}

TEST_F(DeliveryTest, RetryableExhaustedAndPermanentFailures) {
  plugin_->script = {absl::UnavailableError("e1"), absl::DeadlineExceededError("e2"),
                     absl::ResourceExhaustedError("HTTP 429")};
  uint64_t n = Enqueue({{"a", 1}});
  Drain();
  EXPECT_EQ(Only(n).status, kFailed);
  EXPECT_EQ(Only(n).try_count, 3);
  EXPECT_EQ(Only(n).last_error, "after 3 tries: HTTP 429");

  plugin_->script = {absl::FailedPreconditionError("HTTP 400")};
  uint64_t n2 = Enqueue({{"a", 1}});
  Drain();
  EXPECT_EQ(Only(n2).status, kFailed);
  EXPECT_EQ(Only(n2).try_count, 1);
  EXPECT_EQ(Only(n2).last_error, "HTTP 400");
}

TEST_F(DeliveryTest, RenderErrorsMissingTemplateAndExpiry) {
  Template t;
  t.name = "num";
  t.body = R"({"n": {{n}}})";
  templates_.rows["num"] = t;
  uint64_t bad = Enqueue({{"n", "x y"}}, "num");
  uint64_t missing = Enqueue({}, "gone");
  uint64_t old = Enqueue({}, "system-default", -absl::Seconds(1));
  Drain();
  EXPECT_EQ(Only(bad).status, kFailed);
  EXPECT_NE(Only(bad).last_error.find("rendered invalid JSON"), std::string::npos);
  EXPECT_EQ(Only(missing).status, kFailed);
  EXPECT_EQ(Only(missing).last_error, "template \"gone\" not found");
  EXPECT_EQ(Only(old).status, kExpired);
  EXPECT_TRUE(plugin_->sent.empty());
}

// last_error is UTF-8 even when the error quotes raw bytes: the JSON
// parser's message shows what it read up to the error, here the first byte
// of "۱" (found by scripts/fuzz-requests.sh). PostgreSQL refuses invalid
// UTF-8 in the TEXT column and proto3 in the reply.
TEST_F(DeliveryTest, LastErrorIsValidUtf8WhenTheRenderingIsCutMidCharacter) {
  Template t;
  t.name = "cut";
  t.body = "{\"n\": {{{raw}}}}";
  templates_.rows["cut"] = t;
  uint64_t n = Enqueue({{"raw", "\u06f1 1"}}, "cut");
  Drain();
  Message m = Only(n);
  EXPECT_EQ(m.status, kFailed);
  EXPECT_NE(m.last_error.find("rendered invalid JSON"), std::string::npos);
  EXPECT_NO_THROW(json(m.last_error).dump()) << m.last_error;  // throws on invalid UTF-8
  EXPECT_NE(m.last_error.find("\xEF\xBF\xBD"), std::string::npos) << m.last_error;  // U+FFFD
}

TEST_F(DeliveryTest, DeletedReceiverFails) {
  uint64_t n = Enqueue({});
  receivers_.rows.clear();
  Drain();
  EXPECT_EQ(Only(n).status, kFailed);
  EXPECT_NE(Only(n).last_error.find("no longer exists"), std::string::npos);
}

// Like ScriptedPlugin, without secrets.
class PlainPlugin : public testing::ScriptedPlugin {
 public:
  std::vector<std::string> SecretKeys() const override { return {}; }
};

// A receiver type whose Send throws what nlohmann throws on odd data.
class ThrowingPlugin : public testing::ScriptedPlugin {
 public:
  absl::Status Send(const nlohmann::json& config, const nlohmann::json&) override {
    return absl::UnavailableError(config.value("url", 0) == 0 ? "" : "");  // throws: url is a string
  }
};

TEST_F(DeliveryTest, AnExceptionFailsOnlyItsMessage) {
  plugins_["throwing"] = std::make_unique<ThrowingPlugin>();
  Receiver r;
  r.name = "t";
  r.type = "throwing";
  r.configurations = {{"url", "u"}};
  uint64_t tid = *receivers_.Create(r, "");
  Notification n;
  n.template_name = "system-default";
  uint64_t bad = *queue_.Create(n, {{tid, "throwing", json::object()}}, 3, absl::Now() + absl::Hours(1));
  uint64_t good = Enqueue({{"after", 1}});
  Drain();
  EXPECT_EQ(Only(bad).status, kFailed);
  EXPECT_EQ(Only(bad).last_error.rfind("internal error while delivering: [json.exception.type_error", 0),
            0u)
      << Only(bad).last_error;
  EXPECT_EQ(Only(good).status, kPublished);
  EXPECT_EQ(pool_.stats().failed, 1);
}

TEST_F(DeliveryTest, StoredOverridesAreCheckedBeforeSending) {
  // Rows written before overrides were validated (H1: {"url":1} / null used
  // to reach Send and throw; C4/C5: a new destination for stored secrets).
  Notification n;
  n.template_name = "system-default";
  std::vector<uint64_t> ids;
  for (json o : {json{{"url", 1}}, json{{"url", nullptr}}, json{{"url", "gopher://x/_FLUSHALL"}},
                 json{{"url", "http://evil"}}}) {
    ids.push_back(*queue_.Create(n, {{rid_, "scripted", o}}, 3, absl::Now() + absl::Hours(1)));
  }
  Drain();
  for (uint64_t id : ids) EXPECT_EQ(Only(id).status, kFailed) << id;
  for (uint64_t id : ids) {
    EXPECT_EQ(Only(id).last_error.rfind("subscription override url: a subscription cannot change", 0),
              0u)
        << Only(id).last_error;
  }
  // A type without secrets may be redirected, but only to a valid config.
  plugins_["plain"] = std::make_unique<PlainPlugin>();
  Receiver r;
  r.name = "p";
  r.type = "plain";
  r.configurations = {{"url", "u"}};
  uint64_t pid = *receivers_.Create(r, "");
  uint64_t num = *queue_.Create(n, {{pid, "plain", {{"url", 1}}}}, 3, absl::Now() + absl::Hours(1));
  uint64_t null = *queue_.Create(n, {{pid, "plain", {{"url", nullptr}}}}, 3, absl::Now() + absl::Hours(1));
  Drain();
  for (uint64_t id : {num, null}) {
    EXPECT_EQ(Only(id).status, kFailed);
    EXPECT_EQ(Only(id).last_error.rfind("invalid receiver configuration: configurations.url", 0), 0u)
        << Only(id).last_error;
  }
  EXPECT_TRUE(plugin_->sent.empty());
  // An override keeping the destination (or masked) is sent.
  uint64_t ok = *queue_.Create(n, {{rid_, "scripted", {{"url", "u"}, {"extra", 1}}}}, 3,
                               absl::Now() + absl::Hours(1));
  Drain();
  EXPECT_EQ(Only(ok).status, kPublished);
  ASSERT_EQ(plugin_->sent.size(), 1u);
  EXPECT_EQ(plugin_->sent[0].first["extra"], 1);
  EXPECT_EQ(plugin_->sent[0].first["token"], "plain-token");
}

TEST(BackoffTest, DoublesAndCaps) {
  DeliveryOptions o;
  o.backoff_base = absl::Seconds(1);
  o.backoff_max = absl::Seconds(5);
  DeliveryWorkerPool pool(nullptr, nullptr, nullptr, o);
  EXPECT_EQ(pool.Backoff(1), absl::Seconds(1));
  EXPECT_EQ(pool.Backoff(2), absl::Seconds(2));
  EXPECT_EQ(pool.Backoff(3), absl::Seconds(4));
  EXPECT_EQ(pool.Backoff(4), absl::Seconds(5));
  EXPECT_EQ(pool.Backoff(40), absl::Seconds(5));
}

TEST_F(DeliveryTest, WorkerThreadsDeliverAfterWake) {
  DeliveryOptions o = options_;
  o.workers = 2;
  o.poll_interval = absl::Seconds(30);  // only Wake() can make this quick
  DeliveryWorkerPool threads(&queue_, &plugins_, &codec_, o);
  threads.Start();
  absl::SleepFor(absl::Milliseconds(100));  // workers are now idle
  // The fake queue is not thread-safe: enqueue only while the workers wait.
  uint64_t n = Enqueue({{"x", 1}});
  threads.Wake();
  absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (threads.stats().published.load() < 1 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  threads.Stop();
  EXPECT_EQ(Only(n).status, kPublished);
}

}  // namespace
}  // namespace sluice::notification
