// End to end through the gateway: receivers, subscriptions and templates
// CRUD and their error paths (real PostgreSQL, sluice-server, gateway).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "integration/notification_helpers.h"
#include "integration/suite_stack.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

class NotificationApiTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() {
    // File receivers write only under this directory.
    std::string dir = TempPath("api-files");
    mkdir(dir.c_str(), 0755);
    StartSuiteStack("notification:\n  workers: 1\n  file_receiver_dir: " + dir + "\n");
  }
  NotificationApi api_{stack_};
};

TEST_F(NotificationApiTest, RoutesAreInTheOpenApiDocument) {
  json doc = Http("GET", absl::StrCat(stack_->http_base(), "/api/openapi.json")).Json();
  for (const char* path : {"/api/v1beta1/receivers", "/api/v1beta1/receivers/{id}",
                           "/api/v1beta1/subscriptions/{id}", "/api/v1beta1/templates/{name}/render",
                           "/api/v1beta1/notifications", "/api/v1beta1/notifications/{id}/messages",
                           "/api/v1beta1/alerts/{provider_type}/{provider_id}",
                           "/api/v1beta1/server-info"}) {
    EXPECT_TRUE(doc["paths"].contains(path)) << path;
  }
}

TEST_F(NotificationApiTest, ReceiverCrud) {
  uint64_t id = api_.CreateReceiver({{"name", "ops-hook"},
                                     {"type", "http"},
                                     {"labels", {{"team", "ops"}}},
                                     {"configurations", {{"url", "http://127.0.0.1:9/hook"}}}});
  ASSERT_GT(id, 0u);

  auto got = api_.Call("GET", absl::StrCat("/receivers/", id));
  ASSERT_EQ(got.status, 200) << got.body;
  json r = got.Json()["receiver"];
  EXPECT_EQ(r["name"], "ops-hook");
  EXPECT_EQ(r["type"], "http");
  EXPECT_EQ(r["labels"]["team"], "ops");
  EXPECT_EQ(r["labels"]["id"], std::to_string(id));  // implicit labels
  EXPECT_EQ(r["labels"]["type"], "http");
  EXPECT_EQ(r["configurations"]["url"], "*****");  // webhook URLs carry secrets
  EXPECT_FALSE(r["created_at"].get<std::string>().empty());

  // Update: name, labels, configuration; the type may be repeated unchanged.
  auto upd = api_.Call("PUT", absl::StrCat("/receivers/", id),
                       {{"name", "ops-hook-2"},
                        {"type", "http"},
                        {"labels", {{"team", "ops"}, {"tier", "1"}}},
                        {"configurations", {{"url", "http://127.0.0.1:9/other"}}}});
  ASSERT_EQ(upd.status, 200) << upd.body;
  r = api_.Call("GET", absl::StrCat("/receivers/", id)).Json()["receiver"];
  EXPECT_EQ(r["name"], "ops-hook-2");
  EXPECT_EQ(r["labels"]["tier"], "1");
  EXPECT_EQ(r["configurations"]["url"], "*****");

  // The type is immutable.
  ExpectError(api_.Call("PUT", absl::StrCat("/receivers/", id),
                        {{"name", "x"},
                         {"type", "file"},
                         {"configurations", {{"url", "x.jsonl"}}}}),
              3, "immutable");

  ASSERT_EQ(api_.Call("DELETE", absl::StrCat("/receivers/", id)).status, 200);
  ExpectError(api_.Call("GET", absl::StrCat("/receivers/", id)), 5, "not found");
  ExpectError(api_.Call("DELETE", absl::StrCat("/receivers/", id)), 5);
  ExpectError(api_.Call("PUT", absl::StrCat("/receivers/", id),
                        {{"name", "x"}, {"configurations", {{"url", "http://h/"}}}}),
              5);
}

TEST_F(NotificationApiTest, ReceiverValidationErrors) {
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "a"}, {"type", "carrier-pigeon"}, {"configurations", json::object()}}),
              3, "unknown receiver type \"carrier-pigeon\"");
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "a"}, {"type", "http"}, {"configurations", json::object()}}),
              3, "configurations.url");
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "a"}, {"type", "slack"}, {"configurations", {{"token", "t"}}}}),
              3, "configurations.channel_name");
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "a"}, {"type", "pagerduty"}, {"configurations", json::object()}}),
              3, "configurations.service_key");
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "bad name!"}, {"type", "http"},
                         {"configurations", {{"url", "http://h/"}}}}),
              3, "name");
  ExpectError(api_.Call("POST", "/receivers", json::parse(R"({"name": 5})")), 3);
}

TEST_F(NotificationApiTest, SecretsAreMaskedAndKeptOnUpdate) {
  uint64_t id = api_.CreateReceiver(
      {{"name", "slack-ops"},
       {"type", "slack"},
       {"configurations", {{"token", "xoxb-very-secret"}, {"channel_name", "ops"}}}});
  json r = api_.Call("GET", absl::StrCat("/receivers/", id)).Json()["receiver"];
  EXPECT_EQ(r["configurations"]["token"], "*****");
  EXPECT_EQ(r["configurations"]["channel_name"], "ops");
  auto list = api_.Call("GET", "/receivers");
  EXPECT_EQ(list.body.find("xoxb-very-secret"), std::string::npos);
  // Sending the mask back keeps the stored token (verified by delivery tests).
  auto upd = api_.Call("PUT", absl::StrCat("/receivers/", id),
                       {{"name", "slack-ops"},
                        {"configurations", {{"token", "*****"}, {"channel_name", "ops2"}}}});
  EXPECT_EQ(upd.status, 200) << upd.body;

  // At rest the token is ciphertext.
  auto psql = Process::Start({"/usr/bin/psql", stack_->database().dsn(), "-tAc",
                              absl::StrCat("SELECT configurations->>'token' FROM receivers WHERE id=", id)});
  ASSERT_TRUE(psql.ok());
  EXPECT_EQ((*psql)->Wait(absl::Seconds(10)), 0);
  EXPECT_EQ((*psql)->Output().rfind("v2:", 0), 0u) << (*psql)->Output();
}

TEST_F(NotificationApiTest, ListReceiversByLabels) {
  uint64_t a = api_.CreateReceiver({{"name", "la"}, {"type", "http"},
                                    {"labels", {{"squad", "alpha"}, {"env", "prod"}}},
                                    {"configurations", {{"url", "http://h/a"}}}});
  uint64_t b = api_.CreateReceiver({{"name", "lb"}, {"type", "file"},
                                    {"labels", {{"squad", "alpha"}, {"env", "dev"}}},
                                    {"configurations", {{"url", "lb.jsonl"}}}});
  auto ids = [&](const std::string& query) {
    std::set<uint64_t> out;
    json list = api_.Call("GET", "/receivers" + query).Json();
    for (const auto& r : list["receivers"]) {
      out.insert(U64(r["id"]));
    }
    return out;
  };
  EXPECT_EQ(ids("?labels[squad]=alpha"), (std::set<uint64_t>{a, b}));
  EXPECT_EQ(ids("?labels[squad]=alpha&labels[env]=dev"), (std::set<uint64_t>{b}));
  EXPECT_EQ(ids("?labels[type]=http&labels[squad]=alpha"), (std::set<uint64_t>{a}));
  EXPECT_EQ(ids(absl::StrCat("?labels[id]=", b)), (std::set<uint64_t>{b}));
  EXPECT_TRUE(ids("?labels[squad]=nobody").empty());
}

TEST_F(NotificationApiTest, SubscriptionCrudAndErrors) {
  uint64_t rid = api_.CreateReceiver({{"name", "sub-target"}, {"type", "slack"},
                                      {"configurations", {{"token", "xoxb-1"}, {"channel_name", "a"}}}});
  json body = {{"urn", "team-a-critical"},
               {"namespace", 7},
               {"receivers", {{{"id", rid}, {"configuration", {{"channel_name", "b"}}}}}},
               {"match", {{"team", "a"}, {"severity", "critical"}}}};
  uint64_t sid = api_.CreateSubscription(body);
  ASSERT_GT(sid, 0u);
  auto got = api_.Call("GET", absl::StrCat("/subscriptions/", sid));
  ASSERT_EQ(got.status, 200) << got.body;
  json s = got.Json()["subscription"];
  EXPECT_EQ(s["urn"], "team-a-critical");
  EXPECT_EQ(U64(s["namespace"]), 7u);
  EXPECT_EQ(U64(s["receivers"][0]["id"]), rid);
  EXPECT_EQ(s["receivers"][0]["configuration"]["channel_name"], "b");
  EXPECT_EQ(s["match"]["severity"], "critical");
  // Siren's subscription fields (issue #30) show on this API too.
  EXPECT_EQ(s["metadata"], json::object());
  EXPECT_EQ(s["created_by"], "tester@example.com");
  EXPECT_EQ(s["receivers"][0]["labels"], json::object());
  json with_meta = body;
  with_meta["metadata"] = {{"owner", "team-a"}};
  with_meta["receivers"][0]["labels"] = {{"route", "primary"}};
  ASSERT_EQ(api_.Call("PUT", absl::StrCat("/subscriptions/", sid), with_meta).status, 200);
  s = api_.Call("GET", absl::StrCat("/subscriptions/", sid)).Json()["subscription"];
  EXPECT_EQ(s["metadata"]["owner"], "team-a");
  EXPECT_EQ(s["receivers"][0]["labels"]["route"], "primary");
  EXPECT_EQ(s["updated_by"], "tester@example.com");

  ExpectError(api_.Call("POST", "/subscriptions", body), 6, "already exists");
  body["urn"] = "ghost";
  body["receivers"] = {{{"id", 999999}}};
  ExpectError(api_.Call("POST", "/subscriptions", body), 5, "999999");
  body["urn"] = "bad urn";
  ExpectError(api_.Call("POST", "/subscriptions", body), 3, "urn");

  // A used receiver cannot be deleted.
  ExpectError(api_.Call("DELETE", absl::StrCat("/receivers/", rid)), 9, "team-a-critical");

  // Filters: namespace_id and match (subscriptions these labels would match).
  uint64_t other = api_.CreateSubscription(
      {{"urn", "all-team-a"}, {"receivers", {{{"id", rid}}}}, {"match", {{"team", "a"}}}});
  auto urns = [&](const std::string& q) {
    std::set<std::string> out;
    json list = api_.Call("GET", "/subscriptions" + q).Json();
    for (const auto& x : list["subscriptions"]) {
      out.insert(x["urn"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(urns("?namespace_id=7"), (std::set<std::string>{"team-a-critical"}));
  EXPECT_EQ(urns("?match[team]=a"), (std::set<std::string>{"all-team-a"}));
  EXPECT_EQ(urns("?match[team]=a&match[severity]=critical"),
            (std::set<std::string>{"all-team-a", "team-a-critical"}));

  // Update then delete.
  auto upd = api_.Call("PUT", absl::StrCat("/subscriptions/", other),
                       {{"urn", "all-team-a"}, {"receivers", {{{"id", rid}}}},
                        {"match", {{"team", "b"}}}});
  ASSERT_EQ(upd.status, 200) << upd.body;
  EXPECT_EQ(api_.Call("GET", absl::StrCat("/subscriptions/", other)).Json()["subscription"]["match"]["team"],
            "b");
  ASSERT_EQ(api_.Call("DELETE", absl::StrCat("/subscriptions/", other)).status, 200);
  ExpectError(api_.Call("GET", absl::StrCat("/subscriptions/", other)), 5);
  ASSERT_EQ(api_.Call("DELETE", absl::StrCat("/subscriptions/", sid)).status, 200);
  EXPECT_EQ(api_.Call("DELETE", absl::StrCat("/receivers/", rid)).status, 200);
}

TEST_F(NotificationApiTest, TemplatesUpsertListRenderDelete) {
  json t = {{"name", "deploy-done"},
            {"body", R"({"text": "{{service}} deployed by {{who}}", "env": "{{env}}"})"},
            {"tags", {"deploy", "ci"}},
            {"variables", {{{"name", "env"}, {"type", "string"}, {"default", "prod"},
                            {"description", "target"}}}}};
  auto up = api_.Call("PUT", "/templates", t);
  ASSERT_EQ(up.status, 200) << up.body;
  auto got = api_.Call("GET", "/templates/deploy-done").Json()["template"];
  EXPECT_EQ(got["body"], t["body"]);
  EXPECT_EQ(got["tags"], json({"deploy", "ci"}));
  EXPECT_EQ(got["variables"][0]["default"], "prod");
  EXPECT_EQ(got["builtin"], false);

  // Render: values are JSON-escaped, defaults fill gaps, output is JSON.
  auto rendered = api_.Call("POST", "/templates/deploy-done/render",
                            {{"variables", {{"service", "api \"v2\""}, {"who", "a\\b"}}}});
  ASSERT_EQ(rendered.status, 200) << rendered.body;
  json out = json::parse(rendered.Json()["body"].get<std::string>());
  EXPECT_EQ(out["text"], "api \"v2\" deployed by a\\b");
  EXPECT_EQ(out["env"], "prod");

  // A body that does not parse: the parser's message and position.
  ExpectError(api_.Call("PUT", "/templates", {{"name", "broken"}, {"body", "{\"a\": \"{{#x}}\"}"}}),
              3, "Unclosed section \"x\" at 7");
  ExpectError(api_.Call("PUT", "/templates", {{"name", "broken"}, {"body", "{{oops"}}), 3,
              "Unclosed tag at 0");
  ExpectError(api_.Call("GET", "/templates/broken"), 5);

  // List by tag; built-ins are listed and protected.
  auto names = [&](const std::string& q) {
    std::set<std::string> out;
    json list = api_.Call("GET", "/templates" + q).Json();
    for (const auto& x : list["templates"]) {
      out.insert(x["name"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(names("?tag=ci"), (std::set<std::string>{"deploy-done"}));
  std::set<std::string> all = names("");
  for (const char* b : {"system-default", "system-alert-slack", "system-alert-pagerduty",
                        "system-alert-http", "system-alert-file", "deploy-done"}) {
    EXPECT_TRUE(all.count(b)) << b;
  }
  EXPECT_EQ(api_.Call("GET", "/templates/system-alert-slack").Json()["template"]["builtin"], true);
  ExpectError(api_.Call("DELETE", "/templates/system-default"), 9, "built in");
  ExpectError(api_.Call("PUT", "/templates", {{"name", "system-default"}, {"body", "{}"}}), 9);

  ASSERT_EQ(api_.Call("DELETE", "/templates/deploy-done").status, 200);
  ExpectError(api_.Call("GET", "/templates/deploy-done"), 5);
  ExpectError(api_.Call("DELETE", "/templates/deploy-done"), 5);
}

TEST_F(NotificationApiTest, NotificationRequestErrors) {
  api_.CreateReceiver({{"name", "err-target"}, {"type", "http"},
                       {"labels", {{"purpose", "errors"}}},
                       {"configurations", {{"url", "http://127.0.0.1:9/"}}}});
  ExpectError(api_.Call("POST", "/notifications", {{"receivers", {{{"purpose", "errors"}}}}}), 3,
              "data");
  ExpectError(api_.Call("POST", "/notifications", {{"data", {{"a", "b"}}}}), 3,
              "receivers and labels");
  ExpectError(api_.Call("POST", "/notifications",
                        {{"receivers", {{{"purpose", "nobody"}}}}, {"data", json::object()}}),
              5, "no receiver matched");
  ExpectError(api_.Call("POST", "/notifications",
                        {{"receivers", {{{"purpose", "errors"}}}}, {"data", json::object()},
                         {"template", "no-such-template"}}),
              5, "no-such-template");
  ExpectError(api_.Call("POST", "/notifications",
                        {{"receivers", {{{"purpose", true}}}}, {"data", json::object()}}),
              3, "receivers[0].purpose");
  ExpectError(api_.Call("GET", "/notifications/424242/messages"), 5);
}

}  // namespace
}  // namespace sluice::integration
