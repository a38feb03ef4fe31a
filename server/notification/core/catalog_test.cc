#include "server/notification/core/catalog.h"

#include <gtest/gtest.h>

#include "server/notification/core/fakes.h"
#include "server/notification/core/labels.h"

namespace sluice::notification {
namespace {

using nlohmann::json;

class CatalogTest : public ::testing::Test {
 protected:
  CatalogTest() {
    auto plugin = std::make_unique<testing::ScriptedPlugin>();
    plugins_["scripted"] = std::move(plugin);
  }
  ReceiverPlugins plugins_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  SecretCodec codec_{&plugins_, crypter_.get()};
  testing::FakeReceiverRepository repo_;
  testing::FakeSubscriptionRepository subs_;
  testing::FakeTemplateRepository templates_;
  ReceiverService receivers_{&repo_, &plugins_, &codec_};
  SubscriptionService subscriptions_{&subs_, &repo_, &codec_};
  TemplateService template_service_{&templates_};
};

Receiver R(const std::string& name, json config, Labels labels = {}) {
  Receiver r;
  r.name = name;
  r.type = "scripted";
  r.configurations = std::move(config);
  r.labels = std::move(labels);
  return r;
}

TEST_F(CatalogTest, SecretsEncryptedAtRestMaskedOnOutputKeptWhenMasked) {
  auto id = receivers_.Create(R("a", {{"url", "u"}, {"token", "s3cret"}}), "me");
  ASSERT_TRUE(id.ok()) << id.status();
  std::string stored = repo_.rows[*id].configurations["token"];
  EXPECT_TRUE(Crypter::IsEncrypted(stored));
  EXPECT_EQ(*crypter_->Decrypt(stored), "s3cret");
  auto got = receivers_.Get(*id);
  EXPECT_EQ(got->configurations["token"], kMaskedSecret);
  EXPECT_EQ(got->labels["id"], std::to_string(*id));
  EXPECT_EQ(got->labels["type"], "scripted");

  Receiver upd = R("a2", {{"url", "u2"}, {"token", kMaskedSecret}});
  upd.id = *id;
  ASSERT_TRUE(receivers_.Update(upd, "me").ok());
  EXPECT_EQ(repo_.rows[*id].configurations["token"], stored);  // unchanged ciphertext
  EXPECT_EQ(repo_.rows[*id].name, "a2");
}

TEST_F(CatalogTest, ReceiverValidation) {
  EXPECT_EQ(receivers_.Create(R("bad name", {{"url", "u"}}), "me").status().code(),
            absl::StatusCode::kInvalidArgument);
  Receiver unknown = R("x", {{"url", "u"}});
  unknown.type = "fax";
  auto st = receivers_.Create(unknown, "me").status();
  EXPECT_NE(st.message().find("unknown receiver type \"fax\" (known: scripted)"), std::string::npos);
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

TEST_F(CatalogTest, SubscriptionNeedsExistingReceiversAndSealsOverrides) {
  Subscription s;
  s.urn = "team-x";
  s.receivers = {{42, json::object()}};
  EXPECT_EQ(subscriptions_.Create(s, "me").status().code(), absl::StatusCode::kNotFound);
  auto rid = receivers_.Create(R("a", {{"url", "u"}, {"token", "t"}}), "me");
  s.receivers = {{*rid, {{"token", "override-secret"}}}};
  auto sid = subscriptions_.Create(s, "me");
  ASSERT_TRUE(sid.ok());
  EXPECT_TRUE(Crypter::IsEncrypted(subs_.rows[*sid].receivers[0].configuration["token"]));
  EXPECT_EQ(subscriptions_.Get(*sid)->receivers[0].configuration["token"], kMaskedSecret);
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
  EXPECT_EQ(all->size(), 6u);  // 5 built-ins + "ok"
  EXPECT_EQ(*template_service_.Render("ok", {{"x", "\"q\""}}, ""), R"({"a": "\"q\""})");
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
  EXPECT_TRUE(ValidName("a.b-c_D9", "_.-"));
  EXPECT_FALSE(ValidName("a.b", "_-"));
  EXPECT_FALSE(ValidName("", "_-"));
}

}  // namespace
}  // namespace sluice::notification
