#include "server/notification/core/catalog.h"

#include <cmath>

#include <gtest/gtest.h>

#include "server/notification/core/fakes.h"
#include "server/notification/core/labels.h"

namespace sluice::notification {
namespace {

using nlohmann::json;

Receiver R(const std::string& name, json config, Labels labels = {}) {
  Receiver r;
  r.name = name;
  r.type = "scripted";
  r.configurations = std::move(config);
  r.labels = std::move(labels);
  return r;
}

class CatalogTest : public ::testing::Test {
 protected:
  CatalogTest() {
    auto plugin = std::make_unique<testing::ScriptedPlugin>();
    plugins_["scripted"] = std::move(plugin);
    plugins_["plain"] = std::make_unique<PlainPlugin>();
  }
  // Like "scripted", without secrets.
  class PlainPlugin : public testing::ScriptedPlugin {
   public:
    std::vector<std::string> SecretKeys() const override { return {}; }
  };
  uint64_t Receive(json config, const std::string& type = "scripted") {
    Receiver r = R("r", std::move(config));
    r.type = type;
    auto id = receivers_.Create(r, "me");
    EXPECT_TRUE(id.ok()) << id.status();
    return id.ok() ? *id : 0;
  }
  absl::Status Subscribe(uint64_t receiver, json override) {
    Subscription s;
    s.urn = "s" + std::to_string(++urns_);
    s.receivers = {{receiver, std::move(override)}};
    return subscriptions_.Create(s, "me").status();
  }
  int urns_ = 0;
  ReceiverPlugins plugins_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  SecretCodec codec_{&plugins_, crypter_.get()};
  testing::FakeReceiverRepository repo_;
  testing::FakeSubscriptionRepository subs_;
  testing::FakeTemplateRepository templates_;
  ReceiverService receivers_{&repo_, &plugins_, &codec_};
  SubscriptionService subscriptions_{&subs_, &repo_, &plugins_, &codec_};
  TemplateService template_service_{&templates_};
};

TEST_F(CatalogTest, SecretsEncryptedAtRestMaskedOnOutputKeptWhenMasked) {
  auto id = receivers_.Create(R("a", {{"url", "u"}, {"token", "s3cret"}}), "me");
  ASSERT_TRUE(id.ok()) << id.status();
  std::string stored = repo_.rows[*id].configurations["token"];
  EXPECT_TRUE(Crypter::IsEncrypted(stored));
  EXPECT_EQ(*crypter_->Decrypt(stored, ReceiverPlace(*id) + "/token"), "s3cret");
  // Bound to its row and field: another receiver's place does not open it.
  EXPECT_FALSE(crypter_->Decrypt(stored, ReceiverPlace(*id + 1) + "/token").ok());
  auto got = receivers_.Get(*id);
  EXPECT_EQ(got->configurations["token"], kMaskedSecret);
  EXPECT_EQ(got->labels["id"], std::to_string(*id));
  EXPECT_EQ(got->labels["type"], "scripted");

  Receiver upd = R("a2", {{"url", "u"}, {"token", kMaskedSecret}});
  upd.id = *id;
  ASSERT_TRUE(receivers_.Update(upd, "me").ok());
  EXPECT_EQ(repo_.rows[*id].configurations["token"], stored);  // unchanged ciphertext
  EXPECT_EQ(repo_.rows[*id].name, "a2");
}

// Like "scripted", trading a {"code": ...} configuration for a token at
// create and update, as slack's OAuth exchange does.
class ExchangingPlugin : public testing::ScriptedPlugin {
 public:
  absl::StatusOr<json> PrepareConfig(json config) const override {
    if (!config.contains("code")) return config;
    if (config["code"] == "bad") return absl::FailedPreconditionError("vendor: invalid_code");
    return json{{"url", "u"}, {"token", "tok-" + config["code"].get<std::string>()}};
  }
};

TEST_F(CatalogTest, PrepareConfigRunsBeforeValidationAndItsSecretsAreSealed) {
  plugins_["exchanging"] = std::make_unique<ExchangingPlugin>();
  Receiver r = R("x", {{"code", "c1"}});
  r.type = "exchanging";
  auto id = receivers_.Create(r, "me");
  ASSERT_TRUE(id.ok()) << id.status();
  std::string stored = repo_.rows[*id].configurations["token"];
  EXPECT_EQ(*crypter_->Decrypt(stored, ReceiverPlace(*id) + "/token"), "tok-c1");
  EXPECT_FALSE(repo_.rows[*id].configurations.contains("code"));
  r.configurations = {{"code", "bad"}};
  EXPECT_EQ(receivers_.Create(r, "me").status().message(), "vendor: invalid_code");
  r.id = *id;
  r.configurations = {{"code", "c2"}};
  ASSERT_TRUE(receivers_.Update(r, "me").ok());
  EXPECT_EQ(*crypter_->Decrypt(repo_.rows[*id].configurations["token"].get<std::string>(),
                               ReceiverPlace(*id) + "/token"),
            "tok-c2");
}

class ChildOfScripted : public testing::ScriptedPlugin {
 public:
  std::string ParentType() const override { return "scripted"; }
  std::vector<std::string> SecretKeys() const override { return {}; }
};

TEST_F(CatalogTest, ParentIdIsRequiredForChildTypesAndRefusedOtherwise) {
  plugins_["child"] = std::make_unique<ChildOfScripted>();
  uint64_t parent = Receive({{"url", "u"}, {"token", "t"}});
  uint64_t plain = Receive({{"url", "u"}}, "plain");
  Receiver c = R("c", {{"url", "u"}});
  c.type = "child";
  auto missing = receivers_.Create(c, "me");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.status().message(),
            "parent_id: type child needs a parent receiver (of type scripted)");
  c.parent_id = 9999;
  EXPECT_EQ(receivers_.Create(c, "me").status().message(), "parent_id: receiver 9999 not found");
  c.parent_id = plain;
  EXPECT_EQ(receivers_.Create(c, "me").status().message(),
            "parent_id: the parent of child should be of type scripted, not plain");
  c.parent_id = parent;
  auto id = receivers_.Create(c, "me");
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(receivers_.Get(*id)->parent_id, parent);
  // Update: 0 keeps the parent; another type is refused.
  c.id = *id;
  c.parent_id = 0;
  ASSERT_TRUE(receivers_.Update(c, "me").ok());
  EXPECT_EQ(repo_.rows[*id].parent_id, parent);
  c.parent_id = plain;
  EXPECT_FALSE(receivers_.Update(c, "me").ok());
  // A type without a parent type refuses one.
  Receiver p = R("p", {{"url", "u"}});
  p.parent_id = parent;
  EXPECT_EQ(receivers_.Create(p, "me").status().message(),
            "parent_id: type scripted should not have a parent receiver");
}

TEST_F(CatalogTest, NewDestinationNeedsTheSecretsAgain) {
  auto id = receivers_.Create(R("a", {{"url", "https://good"}, {"token", "s3cret"}}), "me");
  ASSERT_TRUE(id.ok());
  std::string stored = repo_.rows[*id].configurations["token"];
  // The review's C5 move: new url, token "*****" (or omitted, or an old
  // ciphertext) would send the stored token to "evil".
  for (json token : {json(kMaskedSecret), json(), json(stored), json(5)}) {
    json config = {{"url", "http://evil"}};
    if (!token.is_null()) config["token"] = token;
    Receiver upd = R("a", config);
    upd.id = *id;
    absl::Status st = receivers_.Update(upd, "me");
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << config.dump();
    if (token == json(stored)) {  // a ciphertext is never accepted from a client (M1)
      EXPECT_NE(st.message().find("configurations.token: looks like a stored ciphertext"),
                std::string::npos)
          << st;
      continue;
    }
    EXPECT_NE(st.message().find("configurations.token: must be supplied again"), std::string::npos)
        << st;
    EXPECT_NE(st.message().find("configurations.url changes"), std::string::npos) << st;
  }
  EXPECT_EQ(repo_.rows[*id].configurations["url"], "https://good");
  // Removing the destination key is a change too.
  Receiver gone = R("a", {{"token", kMaskedSecret}});
  gone.id = *id;
  EXPECT_EQ(receivers_.Update(gone, "me").code(), absl::StatusCode::kInvalidArgument);
  // Supplied again: accepted and sealed.
  Receiver ok = R("a", {{"url", "http://new"}, {"token", "new-token"}});
  ok.id = *id;
  ASSERT_TRUE(receivers_.Update(ok, "me").ok());
  EXPECT_EQ(*crypter_->Decrypt(repo_.rows[*id].configurations["token"],
                               ReceiverPlace(*id) + "/token"),
            "new-token");
  EXPECT_EQ(repo_.rows[*id].configurations["url"], "http://new");
}

TEST_F(CatalogTest, UpdateValidatesTheResultingConfiguration) {
  auto id = receivers_.Create(R("a", {{"url", "https://good"}, {"token", "s3cret"}}), "me");
  Receiver upd = R("a", {{"url", "gopher://redis:6379/_FLUSHALL"}, {"token", "t2"}});
  upd.id = *id;
  absl::Status st = receivers_.Update(upd, "me");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("configurations.url"), std::string::npos) << st;
}

TEST_F(CatalogTest, OverridesAreValidatedMergedOverTheReceiver) {
  uint64_t plain = Receive({{"url", "https://plain"}}, "plain");
  // The review's reproductions: a destination the type refuses, and values
  // that used to crash the delivery worker.
  for (json bad : {json{{"url", "gopher://redis:6379/_FLUSHALL"}}, json{{"url", 1}},
                   json{{"url", nullptr}}}) {
    absl::Status st = Subscribe(plain, bad);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << bad.dump();
    EXPECT_NE(st.message().find("receivers[0].configuration.url"), std::string::npos) << st;
  }
  // A type without secrets may be pointed elsewhere (validated).
  EXPECT_TRUE(Subscribe(plain, {{"url", "https://elsewhere"}}).ok());
  EXPECT_TRUE(Subscribe(plain, json::object()).ok());
  EXPECT_TRUE(Subscribe(plain, nullptr).ok());  // no override
  EXPECT_EQ(subs_.rows.size(), 3u);

  // Update runs the same checks.
  Subscription s = subs_.rows.begin()->second;
  s.receivers[0].configuration = {{"url", "gopher://x"}};
  EXPECT_EQ(subscriptions_.Update(s, "me").code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CatalogTest, OverridesCannotMoveAReceiverWithSecrets) {
  uint64_t secret = Receive({{"url", "https://hooks/T/B/x"}, {"token", "s3cret-token"}});
  absl::Status st = Subscribe(secret, {{"url", "http://evil"}});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("receivers[0].configuration.url: a subscription cannot change where"),
            std::string::npos)
      << st;
  EXPECT_EQ(st.message().find("s3cret"), std::string::npos);
  // The same destination, "*****", or another non-destination key is fine.
  EXPECT_TRUE(Subscribe(secret, {{"url", "https://hooks/T/B/x"}}).ok());
  EXPECT_TRUE(Subscribe(secret, {{"url", kMaskedSecret}, {"token", kMaskedSecret}}).ok());
  EXPECT_TRUE(Subscribe(secret, {{"channel", "#x"}}).ok());
  // A secret of its own is not an override either (it would be sealed to
  // the subscription, and a ciphertext there could be swapped in).
  EXPECT_EQ(Subscribe(secret, {{"token", "other-token"}, {"channel", "#x"}}).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CatalogTest, RedactHidesSecretValues) {
  json opened = {{"url", "u"}, {"token", "s3cret-token"}};
  EXPECT_EQ(codec_.Redact("scripted", opened, "x: s3cret-token is bad"), "x: ***** is bad");
  EXPECT_EQ(codec_.Redact("plain", opened, "x: s3cret-token"), "x: s3cret-token");
}

TEST_F(CatalogTest, ReceiverValidation) {
  EXPECT_EQ(receivers_.Create(R("bad name", {{"url", "u"}}), "me").status().code(),
            absl::StatusCode::kInvalidArgument);
  Receiver unknown = R("x", {{"url", "u"}});
  unknown.type = "fax";
  auto st = receivers_.Create(unknown, "me").status();
  EXPECT_NE(st.message().find("unknown receiver type \"fax\" (known: plain, scripted)"), std::string::npos);
  EXPECT_NE(receivers_.Create(R("x", json::object()), "me").status().message().find("configurations.url"),
            std::string::npos);
  EXPECT_NE(receivers_.Create(R("x", {{"url", "u"}}, {{"id", "7"}}), "me").status().message().find("reserved"),
            std::string::npos);
  auto id = receivers_.Create(R("ok", {{"url", "u"}}), "me");
  Receiver retype = R("ok", {{"url", "u"}});
  retype.id = *id;
  retype.type = "other";
  EXPECT_NE(receivers_.Update(retype, "me").message().find("immutable"), std::string::npos);
}

TEST_F(CatalogTest, ListFiltersOnImplicitLabelsToo) {
  auto a = receivers_.Create(R("a", {{"url", "u"}}, {{"team", "x"}}), "me");
  auto b = receivers_.Create(R("b", {{"url", "u"}}, {{"team", "x"}}), "me");
  EXPECT_EQ(receivers_.List({{"team", "x"}})->size(), 2u);
  auto only_b = receivers_.List({{"team", "x"}, {"id", std::to_string(*b)}});
  ASSERT_EQ(only_b->size(), 1u);
  EXPECT_EQ((*only_b)[0].id, *b);
  EXPECT_TRUE(receivers_.List({{"type", "http"}})->empty());
  (void)a;
}

TEST_F(CatalogTest, SubscriptionNeedsExistingReceiversAndNoSecretsInOverrides) {
  Subscription s;
  s.urn = "team-x";
  s.receivers = {{42, json::object()}};
  EXPECT_EQ(subscriptions_.Create(s, "me").status().code(), absl::StatusCode::kNotFound);
  auto rid = receivers_.Create(R("a", {{"url", "u"}, {"token", "t"}}), "me");
  // Secrets stay with the receiver: an override may not carry one ...
  s.receivers = {{*rid, {{"token", "override-secret"}}}};
  auto refused = subscriptions_.Create(s, "me");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("receivers[0].configuration.token"), std::string::npos);
  // ... nor a ciphertext copied from somewhere; "*****" means the receiver's own.
  s.receivers = {{*rid, {{"token", repo_.rows[*rid].configurations["token"]}}}};
  EXPECT_EQ(subscriptions_.Create(s, "me").status().code(), absl::StatusCode::kInvalidArgument);
  s.receivers = {{*rid, {{"token", kMaskedSecret}}}};
  auto sid = subscriptions_.Create(s, "me");
  ASSERT_TRUE(sid.ok()) << sid.status();
  EXPECT_FALSE(subs_.rows[*sid].receivers[0].configuration.contains("token"));
  s.urn = "has space";
  EXPECT_EQ(subscriptions_.Create(s, "me").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CatalogTest, TemplatesValidateAndProtectBuiltins) {
  Template t;
  t.name = "ok";
  t.body = "{{#x}}";
  EXPECT_NE(template_service_.Upsert(t, "me").message().find("Unclosed section"), std::string::npos);
  t.body = R"({"a": "{{x}}"})";
  EXPECT_TRUE(template_service_.Upsert(t, "me").ok());
  t.name = "system-default";
  EXPECT_EQ(template_service_.Upsert(t, "me").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(template_service_.Delete("system-alert-slack", "me").code(),
            absl::StatusCode::kFailedPrecondition);
  auto all = template_service_.List("");
  EXPECT_EQ(all->size(), 9u);  // 8 built-ins (4 of them Siren's alert templates) + "ok"
  auto allow = [](const Template&) { return absl::OkStatus(); };
  EXPECT_EQ(*template_service_.Render("ok", {{"x", "\"q\""}}, "", allow), R"({"a": "\"q\""})");
  // The authorizer sees the template and its refusal is the answer.
  Template seen;
  auto refuse = [&](const Template& t) {
    seen = t;
    return absl::PermissionDeniedError("no");
  };
  EXPECT_EQ(template_service_.Render("system-alert-slack", {}, "slack", refuse).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(seen.engine, "go-content");
}

TEST_F(CatalogTest, SubscriptionReceiverRelations) {
  uint64_t a = Receive({{"url", "http://a/"}}, "plain");
  uint64_t b = Receive({{"url", "http://a/"}}, "plain");
  Subscription s;
  s.urn = "rel";
  s.receivers = {{a, json::object(), {{"route", "primary"}}}};
  s.metadata = {{"owner", "team-a"}};
  auto id = subscriptions_.Create(s, "me");
  ASSERT_TRUE(id.ok()) << id.status();

  ASSERT_TRUE(subscriptions_.AddReceiver(*id, b, {{"route", "backup"}}, "me").ok());
  EXPECT_EQ(subscriptions_.AddReceiver(*id, b, {}, "me").code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(subscriptions_.AddReceiver(*id, 999, {}, "me").code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(subscriptions_.UpdateReceiverLabels(*id, b, {{"route", "standby"}}, "me").ok());
  auto got = subscriptions_.Get(*id);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->receivers.size(), 2u);
  EXPECT_EQ(got->receivers[0].labels, (Labels{{"route", "primary"}}));
  EXPECT_EQ(got->receivers[1].labels, (Labels{{"route", "standby"}}));
  EXPECT_EQ(got->metadata, (json{{"owner", "team-a"}}));

  ASSERT_TRUE(subscriptions_.RemoveReceiver(*id, b, "me").ok());
  EXPECT_EQ(subscriptions_.RemoveReceiver(*id, b, "me").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(subscriptions_.RemoveReceiver(*id, a, "me").code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(CatalogTest, SubscriptionMetadataMustBeAnObject) {
  uint64_t a = Receive({{"url", "http://a/"}}, "plain");
  Subscription s;
  s.urn = "meta";
  s.receivers = {{a, json::object()}};
  s.metadata = json::array();
  auto id = subscriptions_.Create(s, "me");
  EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CatalogTest, SirensTwoMatchFiltersMeanOppositeContainments) {
  uint64_t a = Receive({{"url", "http://a/"}}, "plain");
  Subscription s;
  s.urn = "m";
  s.receivers = {{a, json::object()}};
  s.match = {{"severity", "CRITICAL"}, {"environment", "production"}};
  ASSERT_TRUE(subscriptions_.Create(s, "me").ok());
  SubscriptionFilter sub;  // Siren's match: the subscription's match ⊇ given
  sub.match = {{"severity", "CRITICAL"}};
  EXPECT_EQ(subscriptions_.List(sub, Page{})->size(), 1u);
  SubscriptionFilter notif;  // notification_match: ⊆ given
  notif.notification_match = Labels{{"severity", "CRITICAL"}};
  EXPECT_EQ(subscriptions_.List(notif, Page{})->size(), 0u);
  notif.notification_match->emplace("environment", "production");
  EXPECT_EQ(subscriptions_.List(notif, Page{})->size(), 1u);
}

TEST(LabelsTest, SelectorsAndContainment) {
  EXPECT_TRUE(LabelsContain({{"a", "1"}, {"b", "2"}}, {{"a", "1"}}));
  EXPECT_TRUE(LabelsContain({{"a", "1"}}, {}));
  EXPECT_FALSE(LabelsContain({{"a", "1"}}, {{"a", "2"}}));
  auto sel = ParseSelectors({json{{"id", 7}}, json{{"team", "x"}}});
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ((*sel)[0].at("id"), "7");
  EXPECT_NE(ParseSelectors({json{{"team", 5}}}).status().message().find("receivers[0].team"),
            std::string::npos);
  EXPECT_FALSE(ParseSelectors({json::object()}).ok());
  EXPECT_FALSE(ParseSelectors({json{{"id", -1}}}).ok());
  EXPECT_EQ(ParseSelectors({json{{"id", 18446744073709551615u}}})->at(0).at("id"),
            "18446744073709551615");
  EXPECT_EQ(ParseSelectors({json{{"id", 1e19}}})->at(0).at("id"), "10000000000000000000");
  EXPECT_EQ(ParseSelectors({json{{"id", 3.0}}})->at(0).at("id"), "3");
  EXPECT_FALSE(ParseSelectors({json{{"id", 1.5}}}).ok());
  EXPECT_FALSE(ParseSelectors({json{{"id", std::nan("")}}}).ok());
}

// An "id" number outside uint64's range is refused without converting it
// (undefined behaviour, reported by UBSan under scripts/fuzz-requests.sh).
TEST(LabelsTest, SelectorIdsBeyondUint64AreRefused) {
  for (double big : {18446744073709551616.0, 1e30, 1.7976931348623157e308}) {
    auto sel = ParseSelectors({json{{"id", big}}});
    EXPECT_TRUE(absl::IsInvalidArgument(sel.status())) << big;
  }
  EXPECT_TRUE(ValidName("a.b-c_D9", "_.-"));
  EXPECT_FALSE(ValidName("a.b", "_-"));
  EXPECT_FALSE(ValidName("", "_-"));
}

}  // namespace
}  // namespace sluice::notification
