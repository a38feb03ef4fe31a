// The GCP provider plugins end to end: sluice-server + gateway (header mode,
// access admins) against integration/gcp_fake. Register each provider, see
// its resources, appeal → approve → the binding exists in the fake, revoke or
// expiry → it is gone; a provider down during approval leaves the appeal
// pending with no grant, a failed revoke keeps the grant; BigQuery's audit
// log imported as activities; Guardian's documented YAML (docs/providers/)
// loads through sluicectl.
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_replace.h"
#include "integration/appeal_fixture.h"
#include "integration/gcp_fake/gcp_fake_process.h"

namespace sluice::integration {
namespace {

using json = nlohmann::json;
const std::string kAdmin = "admin@example.com";
const std::string kLead = "lead@example.com";

class GcpProvidersTest : public AppealTest {
 protected:
  static void SetUpTestSuite() {
    AppealTest::SetUpTestSuite();
    auto f = GcpFake::Start();
    ASSERT_TRUE(f.ok()) << f.status();
    fake_ = f->release();
    fake_->Seed(json::parse(R"({
      "projects": ["e2e", "gcp-project-id"],
      "bigquery": {"e2e": {"datasets": {"sales": {"labels": {"team": "data"},
                                                  "tables": {"orders": {}}}}},
                   "gcp-project-id": {"datasets": {"ops": {"tables": {
                       "daily_transaction": {}, "audit": {}}}}}},
      "buckets": {"e2e-logs": {"project": "e2e"}, "ops-raw": {"project": "gcp-project-id"}},
      "grantable": {"project": ["projects/integration/roles/project.iamManager"]}})"));
    auto p = Call("POST", "/policies", json::parse(R"({"id": "gcp-flow",
        "steps": [{"name": "lead", "strategy": "manual", "approvers": ["lead@example.com"]}],
        "appeal": {"allow_permanent_access": true}})"), kAdmin);
    ASSERT_EQ(p.status, 200) << p.body;
  }
  static void TearDownTestSuite() {
    delete fake_;
    fake_ = nullptr;
    AppealTest::TearDownTestSuite();
  }
  void TearDown() override { fake_->ClearFaults(); }

  static json Provider(const std::string& type, const std::string& urn,
                       const std::string& resource_name, const std::string& rtype,
                       const json& roles) {
    return {{"type", type},
            {"urn", urn},
            {"allowed_account_types", {"user"}},
            {"credentials", fake_->Credentials(resource_name, 1500)},
            {"resources",
             {{{"type", rtype}, {"policy", {{"id", "gcp-flow"}, {"version", 1}}}, {"roles", roles}}}}};
  }
  // The id of resource `urn` of provider `provider_urn`.
  static std::string ResourceId(const std::string& provider_urn, const std::string& urn) {
    auto r = Call("GET", "/resources?provider_urn=" + provider_urn + "&urn=" + urn);
    auto list = r.Json()["resources"];
    EXPECT_EQ(list.size(), 1u) << r.body;
    return list.empty() ? "" : list[0]["id"].get<std::string>();
  }
  static std::string NewAppeal(const std::string& rid, const std::string& role,
                               const std::string& duration = "") {
    auto r = Appeal(rid, role, duration);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.Json()["appeals"][0]["id"];
  }
  static json ActiveGrants(const std::string& resource_id) {
    auto all = Call("GET", "/grants?account_ids=alice@example.com&statuses=active&size=1000",
                    nullptr, kAdmin)
                   .Json()["grants"];
    json out = json::array();
    for (const auto& g : all) {
      if (g["resource_id"] == resource_id) out.push_back(g);
    }
    return out;
  }
  static std::string DatasetAccess(const std::string& ds) {
    return fake_->State()["bigquery"]["e2e"]["datasets"][ds]["access"].dump();
  }

  static inline GcpFake* fake_ = nullptr;
};

TEST_F(GcpProvidersTest, BigQueryAppealApproveRevoke) {
  auto created = Call("POST", "/providers",
                      Provider("bigquery", "bq-e2e", "projects/e2e", "dataset",
                               json::parse(R"([{"id": "viewer", "permissions": ["READER"]}])")),
                      kAdmin);
  ASSERT_EQ(created.status, 200) << created.body;
  auto provider = created.Json()["provider"];
  EXPECT_EQ(provider["config"]["credentials"]["service_account_key"], "*****");
  EXPECT_EQ(provider["config"]["credentials"]["resource_name"], "projects/e2e");
  auto got = Call("GET", "/providers/" + provider["id"].get<std::string>(), nullptr, kAdmin);
  EXPECT_EQ(got.Json()["provider"]["config"]["credentials"]["service_account_key"], "*****");
  EXPECT_EQ(got.body.find("PRIVATE KEY"), std::string::npos);

  // A stored key never goes to a new API address (review C5): moving
  // api_base_url needs the key again.
  json moved = {{"credentials", {{"api_base_url", "http://127.0.0.1:1"},
                                 {"service_account_key", "*****"}}}};
  ExpectCode(Call("PUT", "/providers/" + provider["id"].get<std::string>(), moved, kAdmin), 400, 3,
             "credentials.service_account_key");

  std::string rid = ResourceId("bq-e2e", "e2e:sales");
  auto res = Call("GET", "/resources/" + rid).Json()["resource"];
  EXPECT_EQ(res["name"], "sales");
  EXPECT_EQ(res["details"]["__metadata"]["labels"]["team"], "data");

  std::string appeal = NewAppeal(rid, "viewer");
  EXPECT_EQ(DatasetAccess("sales").find("alice@example.com"), std::string::npos);
  Act(appeal, "lead", "approve", kLead);
  EXPECT_NE(DatasetAccess("sales").find(R"({"role":"READER","userByEmail":"alice@example.com"})"),
            std::string::npos)
      << DatasetAccess("sales");
  ASSERT_EQ(ActiveGrants(rid).size(), 1u);

  auto revoked = Call("PUT", "/appeals/" + appeal + "/revoke", json{{"reason", "done"}});
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_EQ(DatasetAccess("sales").find("alice@example.com"), std::string::npos);
  EXPECT_TRUE(ActiveGrants(rid).empty());
}

// Guardian's provider activity import end to end: BigQuery's audit log from
// the fake's entries.list, stored once per entry, read back, and the
// provider's failure as the caller sees it.
TEST_F(GcpProvidersTest, BigQueryActivitiesImportOncePerEntry) {
  auto created = Call("POST", "/providers",
                      Provider("bigquery", "bq-acts", "projects/e2e", "dataset",
                               json::parse(R"([{"id": "viewer", "permissions": ["READER"]}])")),
                      kAdmin);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string pid = created.Json()["provider"]["id"];
  std::string rid = ResourceId("bq-acts", "e2e:sales");
  json entry = {{"insertId", "e2e-1"},
                {"timestamp", "2026-02-01T08:00:00.5Z"},
                {"resource", {{"type", "bigquery_dataset"}}},
                {"protoPayload",
                 {{"serviceName", "bigquery.googleapis.com"},
                  {"methodName", "google.cloud.bigquery.v2.JobService.Query"},
                  {"resourceName", "projects/e2e/datasets/sales"},
                  {"authenticationInfo", {{"principalEmail", "bob@example.com"}}},
                  {"authorizationInfo", {{{"permission", "bigquery.tables.getData"}}}}}}};
  fake_->LogEntries(json::array({entry}), "e2e");
  ASSERT_EQ(fake_->Control("GET", "/_fake/logging/entries")["entries"].size(), 1u);
  json body = {{"provider_id", pid}, {"account_ids", {"bob@example.com"}}};
  auto first = Call("POST", "/activities/import", body, kAdmin);
  ASSERT_EQ(first.status, 200) << first.body;
  json a = first.Json()["activities"];
  ASSERT_EQ(a.size(), 1u) << first.body;
  EXPECT_EQ(a[0]["resource_id"], rid);
  EXPECT_EQ(a[0]["timestamp"], "2026-02-01T08:00:00.500Z");
  EXPECT_EQ(a[0]["related_permissions"], json::array({"READER"}));
  auto again = Call("POST", "/activities/import", body, kAdmin);
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.Json()["activities"][0]["id"], a[0]["id"]);  // upserted, not duplicated
  auto list = Call("GET", "/activities?provider_ids=" + pid, nullptr, kAdmin);
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Json()["activities"].size(), 1u) << list.body;

  fake_->Fault({{"path", "/v2/entries:list"}, {"status", 403}});
  ExpectCode(Call("POST", "/activities/import", body, kAdmin), 400, 9, "reading activities");
  // A resource of another provider is refused, naming the field.
  ExpectCode(Call("POST", "/activities/import",
                  json{{"provider_id", pid}, {"resource_ids", {"00000000-0000-0000-0000-000000000001"}}},
                  kAdmin),
             400, 3, "resource_ids[0]");
}

TEST_F(GcpProvidersTest, GcsGrantExpires) {
  auto created = Call(
      "POST", "/providers",
      Provider("gcs", "gcs-e2e", "projects/e2e", "bucket",
               json::parse(R"([{"id": "READER", "permissions": ["roles/storage.legacyBucketReader"]}])")),
      kAdmin);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string rid = ResourceId("gcs-e2e", "e2e-logs");
  std::string appeal = NewAppeal(rid, "READER", "3s");
  Act(appeal, "lead", "approve", kLead);
  auto bindings = [] { return fake_->State()["buckets"]["e2e-logs"]["policy"]["bindings"].dump(); };
  EXPECT_NE(bindings().find("user:alice@example.com"), std::string::npos) << bindings();
  ASSERT_EQ(ActiveGrants(rid).size(), 1u);
  // The expiry job (every 500 ms) revokes it in the provider.
  EXPECT_TRUE(WaitFor([&] { return bindings().find("alice@example.com") == std::string::npos; },
                      absl::Seconds(20)))
      << bindings();
  EXPECT_TRUE(WaitFor([&] { return ActiveGrants(rid).empty(); }, absl::Seconds(5)));
}

TEST_F(GcpProvidersTest, CloudIamAppealApproveRevoke) {
  auto created = Call(
      "POST", "/providers",
      Provider("gcloud_iam", "iam-e2e", "projects/e2e", "project",
               json::parse(R"([{"id": "bq", "permissions": ["roles/bigquery.admin", "roles/bigquery.dataViewer"]}])")),
      kAdmin);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string rid = ResourceId("iam-e2e", "projects/e2e");
  std::string appeal = NewAppeal(rid, "bq");
  Act(appeal, "lead", "approve", kLead);
  auto policy = [] { return fake_->State()["crm"]["projects"]["e2e"]["policy"]; };
  ASSERT_EQ(policy()["bindings"].size(), 2u) << policy();
  EXPECT_EQ(policy()["bindings"][0]["members"], json::parse(R"(["user:alice@example.com"])"));
  ASSERT_EQ(Call("PUT", "/appeals/" + appeal + "/revoke", json{{"reason", "x"}}).status, 200);
  EXPECT_TRUE(policy()["bindings"].empty()) << policy();
}

// Review F-H2, end to end: Google keeps "jane.doe@example.com" while the
// identity says "Jane.Doe@example.com". The appeal is stored in lower case,
// the account revokes its own grant and the binding is gone; a revoke that
// Google does not carry out fails and the grant stays active.
TEST_F(GcpProvidersTest, GcsRevokeMatchesGooglesCasingAndNeverReportsAFalseSuccess) {
  fake_->Seed(json::parse(R"({"principals": ["jane.doe@example.com"]})"));
  auto created = Call(
      "POST", "/providers",
      Provider("gcs", "gcs-case", "projects/gcp-project-id", "bucket",
               json::parse(R"([{"id": "READER", "permissions": ["roles/storage.legacyBucketReader"]}])")),
      kAdmin);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string rid = ResourceId("gcs-case", "ops-raw");
  auto bindings = [] { return fake_->State()["buckets"]["ops-raw"]["policy"]["bindings"].dump(); };
  const std::string jane = "Jane.Doe@example.com";

  auto r = Appeal(rid, "READER", "", jane);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()["appeals"][0]["account_id"], "jane.doe@example.com");
  std::string appeal = r.Json()["appeals"][0]["id"];
  Act(appeal, "lead", "approve", kLead);
  EXPECT_NE(bindings().find("user:jane.doe@example.com"), std::string::npos) << bindings();
  auto revoked = Call("PUT", "/appeals/" + appeal + "/revoke", json{{"reason", "done"}}, jane);
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_EQ(absl::AsciiStrToLower(bindings()).find("jane.doe"), std::string::npos) << bindings();

  r = Appeal(rid, "READER", "", jane);
  ASSERT_EQ(r.status, 200) << r.body;
  appeal = r.Json()["appeals"][0]["id"];
  Act(appeal, "lead", "approve", kLead);
  fake_->Configure(json{{"keepMembers", {"user:jane.doe@example.com"}}});
  revoked = Call("PUT", "/appeals/" + appeal + "/revoke", json{{"reason", "done"}}, kAdmin);
  fake_->Configure(json{{"keepMembers", json::array()}});
  ExpectCode(revoked, 400, 9, "still bound");
  auto grants = Call("GET", "/grants?account_ids=jane.doe@example.com&statuses=active", nullptr,
                     kAdmin).Json()["grants"];
  EXPECT_EQ(grants.size(), 1u) << grants;
}

TEST_F(GcpProvidersTest, RegistrationRefusesABadKeyNamingTheField) {
  json p = Provider("gcs", "gcs-bad", "projects/e2e", "bucket",
                    json::parse(R"([{"id": "r", "permissions": ["roles/storage.objectViewer"]}])"));
  auto other = GcpFake::Start();
  ASSERT_TRUE(other.ok());
  json unknown = (*other)->NewKey("e2e");
  unknown["token_uri"] = fake_->base_url() + "/token";  // signed by a key this endpoint never issued
  p["credentials"]["service_account_key"] = absl::Base64Escape(unknown.dump());
  ExpectCode(Call("POST", "/providers", p, kAdmin), 400, 3, "credentials.service_account_key");
  p["credentials"]["service_account_key"] = "%%%";
  ExpectCode(Call("POST", "/providers", p, kAdmin), 400, 3, "credentials.service_account_key");
  EXPECT_EQ(Call("GET", "/providers?size=1000", nullptr, kAdmin).body.find("gcs-bad"),
            std::string::npos);
}

TEST_F(GcpProvidersTest, ProviderDownLeavesAppealPendingAndFailedRevokeKeepsGrant) {
  auto created = Call("POST", "/providers",
                      Provider("bigquery", "bq-down", "projects/e2e", "table",
                               json::parse(R"([{"id": "viewer", "permissions": ["roles/bigquery.dataViewer"]}])")),
                      kAdmin);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string rid = ResourceId("bq-down", "e2e:sales.orders");
  std::string appeal = NewAppeal(rid, "viewer");
  auto bindings = [] {
    return fake_->State()["bigquery"]["e2e"]["datasets"]["sales"]["tables"]["orders"]["policy"]
        .dump();
  };

  fake_->Fault({{"path", "/tables/orders"}, {"status", 503}, {"count", -1}});
  auto r = Call("POST", "/appeals/" + appeal + "/approvals/lead",
                json{{"action", "approve"}, {"reason", "ok"}}, kLead);
  ExpectCode(r, 503, 14, "granting access in provider bq-down failed");
  EXPECT_NE(r.Json().value("message", "").find("HTTP 503"), std::string::npos) << r.body;
  EXPECT_EQ(Call("GET", "/appeals/" + appeal).Json()["appeal"]["status"], "pending");
  EXPECT_TRUE(ActiveGrants(rid).empty());
  fake_->ClearFaults();
  EXPECT_EQ(bindings().find("alice@example.com"), std::string::npos);

  // The provider is back: approving again grants.
  Act(appeal, "lead", "approve", kLead);
  EXPECT_NE(bindings().find("user:alice@example.com"), std::string::npos);
  ASSERT_EQ(ActiveGrants(rid).size(), 1u);

  // A revoke the provider refuses keeps the grant, and says why.
  fake_->Fault({{"path", "/tables/orders:setIamPolicy"}, {"status", 403}, {"count", -1}});
  r = Call("PUT", "/appeals/" + appeal + "/revoke", json{{"reason", "x"}});
  EXPECT_GE(r.status, 400) << r.body;
  EXPECT_NE(r.Json().value("message", "").find("403 PERMISSION_DENIED"), std::string::npos)
      << r.body;
  EXPECT_EQ(ActiveGrants(rid).size(), 1u);
  EXPECT_NE(bindings().find("user:alice@example.com"), std::string::npos);
  fake_->ClearFaults();
  ASSERT_EQ(Call("PUT", "/appeals/" + appeal + "/revoke", json{{"reason", "x"}}).status, 200);
  EXPECT_EQ(bindings().find("alice@example.com"), std::string::npos);
}

// Runs sluicectl against the stack; returns (exit code, output).
std::pair<int, std::string> Ctl(const Stack& stack, std::vector<std::string> args) {
  std::vector<std::string> argv = {Runfile("cli/sluicectl"), "--host", stack.grpc_target(),
                                   "--email", "admin@example.com", "--json"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto p = Process::Start(argv, stack.ClientEnv());
  if (!p.ok()) return {-1, std::string(p.status().message())};
  int code = (*p)->Wait(absl::Seconds(30));
  return {code, (*p)->Output()};
}

TEST_F(GcpProvidersTest, GuardiansDocumentedYamlLoads) {
  for (const char* id : {"my_policy", "my-first-policy"}) {
    json policy = {{"id", id},
                   {"steps", {{{"name", "lead"}, {"strategy", "manual"}, {"approvers", {kLead}}}}}};
    ASSERT_EQ(Call("POST", "/policies", policy, kAdmin).status, 200);
  }
  std::string dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  for (const std::string type : {"bigquery", "gcs", "gcloud_iam"}) {
    std::ifstream in(Runfile("docs/providers/" + type + ".yaml"));
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_FALSE(text.str().empty()) << type;
    // Only the placeholders change, and the fake's address is added.
    std::string yaml = absl::StrReplaceAll(
        text.str(),
        {{"<base64 encoded service account key json>", fake_->NewKeyBase64("gcp-project-id")},
         {"projects/<gcs-project-id>", "projects/gcp-project-id"}});
    yaml = absl::StrReplaceAll(
        yaml,
        {{"  resource_name: projects/gcp-project-id\n",
          "  resource_name: projects/gcp-project-id\n  api_base_url: " + fake_->base_url() +
              "\n"}});
    std::ofstream(dir + "/" + type + ".yaml") << yaml;
    auto [code, out] = Ctl(*stack_, {"provider", "create", "-f", dir + "/" + type + ".yaml"});
    ASSERT_EQ(code, 0) << type << ": " << out;
    json p = json::parse(out, nullptr, false);
    EXPECT_EQ(p["provider"]["type"], type) << out;
    EXPECT_EQ(p["provider"]["config"]["credentials"]["service_account_key"], "*****");
  }
  // What each registered provider found in the fake.
  auto urns = [](const std::string& provider_urn) {
    std::vector<std::string> out;
    auto got = Call("GET", "/resources?provider_urn=" + provider_urn + "&size=1000");
    EXPECT_EQ(got.status, 200) << got.body;
    json list = got.Json()["resources"];
    for (const auto& r : list) {
      out.push_back(r["type"].get<std::string>() + " " + r["urn"].get<std::string>());
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(urns("my-bigquery"),
            (std::vector<std::string>{"dataset gcp-project-id:ops",
                                      "table gcp-project-id:ops.daily_transaction"}));
  EXPECT_EQ(urns("sample-URN"), (std::vector<std::string>{"bucket ops-raw"}));
  EXPECT_EQ(urns("my-iam"), (std::vector<std::string>{"project projects/gcp-project-id"}));
  json providers = Call("GET", "/providers?size=1000", nullptr, kAdmin).Json()["providers"];
  for (const auto& p : providers) {
    if (p["urn"] == "sample-URN") {
      EXPECT_EQ(p["config"]["allowed_account_types"],
                json::parse(R"(["user","serviceAccount","group","domain"])"));
    }
  }
}

}  // namespace
}  // namespace sluice::integration
