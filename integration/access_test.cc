// Access API part 1 end to end through the gateway (HTTP/JSON): policies,
// providers (noop, postgres), resources, roles, audit logs, the re-fetch job.
#include <fstream>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "integration/harness.h"
#include "integration/suite_stack.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

const std::vector<std::string> kAlice = {"X-Auth-Email: alice@example.com"};

class AccessTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() { StartSuiteStack("access:\n  resource_sync_interval: 1s\n"); }
  static std::string Url(absl::string_view path) {
    return absl::StrCat(stack_->http_base(), "/api/v1beta1", path);
  }
  static HttpResponse Call(absl::string_view method, absl::string_view path, const json& body = nullptr,
                           const std::vector<std::string>& headers = kAlice) {
    return Http(method, Url(path), body.is_null() ? "" : body.dump(), headers);
  }
  static json Policy(const std::string& id) {
    return json::parse(R"({
      "id": ")" + id + R"(",
      "description": "two steps",
      "steps": [
        {"name": "owner", "strategy": "manual", "approvers": ["$appeal.resource.details.owner"]},
        {"name": "admin", "strategy": "manual", "approvers": ["admin@example.com"],
         "when": "$appeal.role == \"admin\""}
      ],
      "iam": {"provider": "http", "config": {"url": "http://127.0.0.1:1/users/{user_id}",
              "auth": {"type": "bearer", "token": "s3cret"}}, "schema": {"manager_email": "manager"}},
      "appeal": {"duration_options": [{"name": "1 day", "value": "24h"}],
                 "allow_active_access_extension_in": "72h"}
    })");
  }
  static json NoopProvider(const std::string& urn, const std::string& policy_id, int version) {
    return json{{"type", "noop"},
                {"urn", urn},
                {"allowed_account_types", {"user"}},
                {"resources",
                 {{{"type", "noop"},
                   {"policy", {{"id", policy_id}, {"version", version}}},
                   {"roles", {{{"id", "viewer"}, {"name", "Viewer"}}, {{"id", "admin"}}}}}}}};
  }
};

void ExpectError(const HttpResponse& r, long http, int code, absl::string_view needle = "") {
  EXPECT_EQ(r.status, http) << r.body;
  json body = r.Json();
  EXPECT_EQ(body.value("code", -1), code) << r.body;
  EXPECT_TRUE(body.contains("details")) << r.body;
  if (!needle.empty()) {
    EXPECT_NE(body.value("message", "").find(std::string(needle)), std::string::npos) << r.body;
  }
}

TEST_F(AccessTest, SeedScenario) {
  // Create policy → register a noop provider pointing at it → list resources
  // → read roles → update policy → v2 exists and v1 still readable.
  auto created = Call("POST", "/policies", Policy("seed-policy"));
  ASSERT_EQ(created.status, 200) << created.body;
  json p = created.Json()["policy"];
  EXPECT_EQ(p["version"], 1);
  EXPECT_EQ(p["created_by"], "alice@example.com");
  EXPECT_EQ(p["iam"]["config"]["auth"]["token"], "*****");  // masked
  EXPECT_EQ(p["steps"].size(), 2u);

  auto prov = Call("POST", "/providers", NoopProvider("seed-noop", "seed-policy", 1));
  ASSERT_EQ(prov.status, 200) << prov.body;
  std::string provider_id = prov.Json()["provider"]["id"];
  EXPECT_EQ(prov.Json()["provider"]["type"], "noop");

  auto res = Call("GET", "/resources?provider_urn=seed-noop");
  ASSERT_EQ(res.status, 200) << res.body;
  ASSERT_EQ(res.Json()["resources"].size(), 1u) << res.body;
  json r = res.Json()["resources"][0];
  EXPECT_EQ(r["type"], "noop");
  EXPECT_EQ(r["urn"], "seed-noop");
  EXPECT_EQ(r["name"], "seed-noop");
  EXPECT_EQ(r["is_deleted"], false);

  auto roles = Call("GET", "/providers/" + provider_id + "/resources/noop/roles");
  ASSERT_EQ(roles.status, 200) << roles.body;
  ASSERT_EQ(roles.Json()["roles"].size(), 2u);
  EXPECT_EQ(roles.Json()["roles"][0]["id"], "viewer");

  json v2 = Policy("seed-policy");
  v2["description"] = "now three steps";
  v2["iam"]["config"]["auth"]["token"] = "*****";  // keep the stored secret
  v2["steps"].push_back({{"name", "auto"}, {"strategy", "auto"}, {"approve_if", "true"}});
  auto updated = Call("PUT", "/policies/seed-policy", v2);
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(updated.Json()["policy"]["version"], 2);

  auto got2 = Call("GET", "/policies/seed-policy/versions/2");
  ASSERT_EQ(got2.status, 200) << got2.body;
  EXPECT_EQ(got2.Json()["policy"]["description"], "now three steps");
  EXPECT_EQ(got2.Json()["policy"]["iam"]["config"]["auth"]["token"], "*****");
  auto got1 = Call("GET", "/policies/seed-policy/versions/1");
  ASSERT_EQ(got1.status, 200) << got1.body;
  EXPECT_EQ(got1.Json()["policy"]["description"], "two steps");
  EXPECT_EQ(got1.Json()["policy"]["steps"].size(), 2u);
  auto latest = Call("GET", "/policies/seed-policy");
  EXPECT_EQ(latest.Json()["policy"]["version"], 2);

  // Every version, oldest first (Guardian's ListPolicies).
  auto list = Call("GET", "/policies?size=1000");
  ASSERT_EQ(list.status, 200);
  std::vector<int> versions;
  json policies = list.Json()["policies"];
  for (const auto& pol : policies) {
    if (pol["id"] == "seed-policy") {
      versions.push_back(pol["version"].get<int>());
      EXPECT_EQ(pol["description"], versions.back() == 1 ? "two steps" : "now three steps");
    }
  }
  EXPECT_EQ(versions, (std::vector<int>{1, 2})) << list.body;
  ExpectError(Call("GET", "/policies/seed-policy/versions/3"), 404, 5);
  ExpectError(Call("GET", "/policies/nope/versions/1"), 404, 5);

  // The provider may point at v2 now; an unknown version is NotFound.
  auto repoint = Call("PUT", "/providers/" + provider_id, NoopProvider("seed-noop", "seed-policy", 2));
  ASSERT_EQ(repoint.status, 200) << repoint.body;
  EXPECT_EQ(repoint.Json()["provider"]["config"]["resources"][0]["policy"]["version"], 2);
  ExpectError(Call("PUT", "/providers/" + provider_id, NoopProvider("seed-noop", "seed-policy", 7)),
              404, 5, "version 7");
}

TEST_F(AccessTest, PolicyErrors) {
  ExpectError(Call("POST", "/policies", Policy("no-auth"), {}), 401, 16);
  ExpectError(Call("POST", "/policies", Policy("no-auth"), {"X-Auth-Email: not-an-email"}), 401, 16);
  ExpectError(Call("POST", "/policies", Policy("bad id!")), 400, 3, "id:");
  json dup_steps = Policy("dup-steps");
  dup_steps["steps"][1]["name"] = "owner";
  ExpectError(Call("POST", "/policies", dup_steps), 400, 3, "steps[1].name");
  json bad_strategy = Policy("bad-strategy");
  bad_strategy["steps"][0]["strategy"] = "magic";
  ExpectError(Call("POST", "/policies", bad_strategy), 400, 3, "steps[0].strategy");
  json no_approvers = Policy("no-approvers");
  no_approvers["steps"][0]["approvers"] = json::array();
  ExpectError(Call("POST", "/policies", no_approvers), 400, 3, "steps[0].approvers");
  json auto_no_if = Policy("auto-no-if");
  auto_no_if["steps"][0] = {{"name", "a"}, {"strategy", "auto"}};
  ExpectError(Call("POST", "/policies", auto_no_if), 400, 3, "steps[0].approve_if");
  json bad_expr = Policy("bad-expr");
  bad_expr["steps"][1]["when"] = "$appeal.role == )";
  ExpectError(Call("POST", "/policies", bad_expr), 400, 3, "steps[1].when");
  ExpectError(Call("POST", "/policies", bad_expr), 400, 3, "column 17");
  json bad_approver = Policy("bad-approver");
  bad_approver["steps"][0]["approvers"] = {"$appeal.resource.(details"};
  ExpectError(Call("POST", "/policies", bad_approver), 400, 3, "steps[0].approvers[0]");
  json bad_req = Policy("bad-req");
  bad_req["requirements"] = {{{"on", {{"expression", "1 +"}}},
                              {"appeals", {{{"resource", {{"id", "x"}}}, {"role", "viewer"}}}}}};
  ExpectError(Call("POST", "/policies", bad_req), 400, 3, "requirements[0].on.expression");
  json bad_duration = Policy("bad-duration");
  bad_duration["appeal"]["duration_options"][0]["value"] = "a day";
  ExpectError(Call("POST", "/policies", bad_duration), 400, 3, "appeal.duration_options[0].value");
  json bad_ext = Policy("bad-ext");
  bad_ext["appeal"]["allow_active_access_extension_in"] = "3 days";
  ExpectError(Call("POST", "/policies", bad_ext), 400, 3, "allow_active_access_extension_in");

  ASSERT_EQ(Call("POST", "/policies", Policy("dup-policy")).status, 200);
  ExpectError(Call("POST", "/policies", Policy("dup-policy")), 409, 6, "already exists");
  ExpectError(Call("PUT", "/policies/missing-policy", Policy("missing-policy")), 404, 5);
  ExpectError(Call("PUT", "/policies/dup-policy", Policy("dup-policy"), {}), 401, 16);
}

TEST_F(AccessTest, ProviderErrors) {
  ASSERT_EQ(Call("POST", "/policies", Policy("prov-policy")).status, 200);
  ExpectError(Call("POST", "/providers", NoopProvider("p-noauth", "prov-policy", 1), {}), 401, 16);
  json unknown = NoopProvider("p-unknown", "prov-policy", 1);
  unknown["type"] = "sharepoint";
  ExpectError(Call("POST", "/providers", unknown), 400, 3,
              "known types: bigquery, gcloud_iam, gcs, grafana, metabase, noop, postgres, tableau");
  ExpectError(Call("POST", "/providers", NoopProvider("p-nopolicy", "ghost", 1)), 404, 5, "ghost");
  ExpectError(Call("POST", "/providers", NoopProvider("p-nopolicy", "prov-policy", 9)), 404, 5);
  json sa = NoopProvider("p-sa", "prov-policy", 1);
  sa["allowed_account_types"] = {"serviceAccount"};
  ExpectError(Call("POST", "/providers", sa), 400, 3, "allowed_account_types");
  json creds = NoopProvider("p-creds", "prov-policy", 1);
  creds["credentials"] = {{"token", "x"}};
  ExpectError(Call("POST", "/providers", creds), 400, 3, "credentials");
  json perms = NoopProvider("p-perms", "prov-policy", 1);
  perms["resources"][0]["roles"][0]["permissions"] = {"read"};
  ExpectError(Call("POST", "/providers", perms), 400, 3, "permissions");
  json bad_filter = NoopProvider("p-filter", "prov-policy", 1);
  bad_filter["resources"][0]["filter"] = "$resource.urn ==";
  ExpectError(Call("POST", "/providers", bad_filter), 400, 3, "resources[0].filter");

  ASSERT_EQ(Call("POST", "/providers", NoopProvider("p-dup", "prov-policy", 1)).status, 200);
  ExpectError(Call("POST", "/providers", NoopProvider("p-dup", "prov-policy", 1)), 409, 6);
  ExpectError(Call("GET", "/providers/00000000-0000-0000-0000-000000000000"), 404, 5);
  ExpectError(Call("GET", "/providers/not-a-uuid"), 404, 5);
  ExpectError(Call("DELETE", "/providers/00000000-0000-0000-0000-000000000000"), 404, 5);
  ExpectError(Call("PUT", "/providers/00000000-0000-0000-0000-000000000000",
                   NoopProvider("p-x", "prov-policy", 1)),
              404, 5);
  ExpectError(Call("GET", "/providers/00000000-0000-0000-0000-000000000000/resources/noop/roles"),
              404, 5);
  auto list = Call("GET", "/providers");
  ASSERT_EQ(list.status, 200);
  std::string id;
  json providers = list.Json()["providers"];
  for (const auto& p : providers) {
    if (p["urn"] == "p-dup") id = p["id"];
  }
  ASSERT_FALSE(id.empty()) << list.body;
  ExpectError(Call("GET", "/providers/" + id + "/resources/table/roles"), 404, 5, "table");
  auto got = Call("GET", "/providers/" + id);
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.Json()["provider"]["urn"], "p-dup");
}

TEST_F(AccessTest, ResourcesAndSyncJob) {
  ASSERT_EQ(Call("POST", "/policies", Policy("res-policy")).status, 200);
  auto prov = Call("POST", "/providers", NoopProvider("res-noop", "res-policy", 1));
  ASSERT_EQ(prov.status, 200) << prov.body;
  std::string provider_id = prov.Json()["provider"]["id"];
  auto list = Call("GET", "/resources?provider_type=noop&urn=res-noop");
  ASSERT_EQ(list.Json()["resources"].size(), 1u) << list.body;
  std::string id = list.Json()["resources"][0]["id"];

  ExpectError(Call("GET", "/resources/00000000-0000-0000-0000-000000000000"), 404, 5);
  ExpectError(Call("PUT", "/resources/" + id, json{{"details", {{"owner", "x@y.z"}}}}, {}), 401, 16);
  auto put = Call("PUT", "/resources/" + id,
                  json{{"details", {{"owner", "bob@example.com"}, {"team", {{"name", "data"}}}}},
                       {"labels", {{"env", "prod"}}}});
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(put.Json()["resource"]["details"]["owner"], "bob@example.com");
  EXPECT_EQ(put.Json()["resource"]["labels"]["env"], "prod");

  auto by_details = Call("GET", "/resources?details=owner:bob@example.com&details=team.name:data");
  ASSERT_EQ(by_details.status, 200) << by_details.body;
  ASSERT_EQ(by_details.Json()["resources"].size(), 1u) << by_details.body;
  EXPECT_EQ(by_details.Json()["resources"][0]["id"], id);
  EXPECT_EQ(Call("GET", "/resources?details=team.name:other").Json()["resources"].size(), 0u);
  ExpectError(Call("GET", "/resources?details=nocolon"), 400, 3, "details");

  // The re-fetch job (1 s here) runs as "system" and keeps the added keys.
  absl::SleepFor(absl::Seconds(3));
  auto logs = Call("GET", "/audit-logs?action=provider.sync&actor=system&size=1");
  ASSERT_EQ(logs.status, 200) << logs.body;
  EXPECT_GE(logs.Json()["total"].get<int>(), 1) << logs.body;
  EXPECT_EQ(logs.Json()["audit_logs"].size(), 1u);
  auto after = Call("GET", "/resources/" + id);
  ASSERT_EQ(after.status, 200);
  EXPECT_EQ(after.Json()["resource"]["details"]["owner"], "bob@example.com") << after.body;

  ExpectError(Call("DELETE", "/resources/" + id, nullptr, {}), 401, 16);
  ASSERT_EQ(Call("DELETE", "/resources/" + id).status, 200);
  EXPECT_EQ(Call("GET", "/resources/" + id).Json()["resource"]["is_deleted"], true);
  auto deleted = Call("GET", "/resources?urn=res-noop&is_deleted=true");
  EXPECT_EQ(deleted.Json()["resources"].size(), 1u) << deleted.body;
  // A later sync brings it back (the provider still returns it).
  absl::SleepFor(absl::Seconds(2.5));
  EXPECT_EQ(Call("GET", "/resources/" + id).Json()["resource"]["is_deleted"], false);

  // Deleting the provider soft-deletes its resources.
  ASSERT_EQ(Call("DELETE", "/providers/" + provider_id).status, 200);
  ExpectError(Call("GET", "/providers/" + provider_id), 404, 5);
  EXPECT_EQ(Call("GET", "/resources/" + id).Json()["resource"]["is_deleted"], true);
}

TEST_F(AccessTest, PostgresProviderCredentialsAndFetchFailure) {
  ASSERT_EQ(Call("POST", "/policies", Policy("pg-policy")).status, 200);
  json creds = json::object();
  for (absl::string_view kv : absl::StrSplit(stack_->database().dsn(), ' ', absl::SkipEmpty())) {
    std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    creds[p.first] = p.second;
  }
  creds["password"] = "unused-secret";
  json config = {{"type", "postgres"},
                 {"urn", "pg-main"},
                 {"allowed_account_types", {"user"}},
                 {"credentials", creds},
                 {"resources",
                  {{{"type", "table"},
                    {"policy", {{"id", "pg-policy"}, {"version", 1}}},
                    {"filter", "$resource.details.schema == \"public\" && $resource.urn contains \"polic\""},
                    {"roles", {{{"id", "viewer"}, {"permissions", {"SELECT"}}},
                               {{"id", "editor"}, {"permissions", {"SELECT", "INSERT", "UPDATE", "DELETE"}}}}}}}}};
  json unreachable = config;
  unreachable["credentials"]["port"] = "1";
  ExpectError(Call("POST", "/providers", unreachable), 400, 9, "cannot read the catalog");
  EXPECT_EQ(Call("GET", "/providers").Json()["providers"].size(),
            Call("GET", "/providers").Json()["providers"].size());
  EXPECT_EQ(Call("GET", "/resources?provider_urn=pg-main").Json()["resources"].size(), 0u);

  auto created = Call("POST", "/providers", config);
  ASSERT_EQ(created.status, 200) << created.body;
  json cr = created.Json()["provider"]["config"]["credentials"];
  EXPECT_EQ(cr["password"], "*****");
  EXPECT_EQ(cr["user"], creds["user"]);
  EXPECT_EQ(created.body.find("unused-secret"), std::string::npos);
  auto res = Call("GET", "/resources?provider_type=postgres&provider_urn=pg-main");
  ASSERT_EQ(res.Json()["resources"].size(), 1u) << res.body;
  EXPECT_EQ(res.Json()["resources"][0]["urn"], "public.policies");

  // PUT replaces the config, as Guardian's does: the config as GET shows it
  // (password masked) with a label added keeps the stored password.
  std::string pid = created.Json()["provider"]["id"].get<std::string>();
  json change = created.Json()["provider"]["config"];
  change["labels"] = {{"team", "data"}};
  auto upd = Call("PUT", "/providers/" + pid, change);
  ASSERT_EQ(upd.status, 200) << upd.body;
  EXPECT_EQ(upd.Json()["provider"]["config"]["labels"]["team"], "data");
  EXPECT_EQ(upd.Json()["provider"]["config"]["credentials"]["password"], "*****");
  EXPECT_EQ(upd.Json()["provider"]["config"]["credentials"]["host"], creds["host"]);
  res = Call("GET", "/resources?provider_type=postgres&provider_urn=pg-main");
  EXPECT_EQ(res.Json()["resources"].size(), 1u) << "the stored password still connects: " << res.body;
  // A body that leaves the labels out clears them (Guardian stores the
  // request's config as it is).
  change.erase("labels");
  upd = Call("PUT", "/providers/" + pid, change);
  ASSERT_EQ(upd.status, 200) << upd.body;
  EXPECT_FALSE(upd.Json()["provider"]["config"].contains("labels") &&
               !upd.Json()["provider"]["config"]["labels"].empty())
      << upd.body;
}

TEST_F(AccessTest, AuditLogFiltersAndPaging) {
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Call("POST", "/policies", Policy(absl::StrCat("audit-", i)), {"X-Auth-Email: auditor@example.com"}).status,
              200);
  }
  auto page = Call("GET", "/audit-logs?actor=auditor@example.com&action=policy.create&size=2");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.Json()["total"], 3);
  ASSERT_EQ(page.Json()["audit_logs"].size(), 2u);
  EXPECT_EQ(page.Json()["audit_logs"][0]["data"]["id"], "audit-2");  // newest first
  auto page2 = Call("GET", "/audit-logs?actor=auditor@example.com&size=2&offset=2");
  ASSERT_EQ(page2.Json()["audit_logs"].size(), 1u);
  EXPECT_EQ(page2.Json()["audit_logs"][0]["data"]["id"], "audit-0");
  auto future = Call("GET", "/audit-logs?actor=auditor@example.com&start_time=2999-01-01T00:00:00Z");
  EXPECT_EQ(future.Json()["total"], 0);
  auto past = Call("GET", "/audit-logs?actor=auditor@example.com&end_time=2000-01-01T00:00:00Z");
  EXPECT_EQ(past.Json()["total"], 0);
  ExpectError(Call("GET", "/audit-logs?start_time=garbage"), 400, 3, "start_time");
  ExpectError(Call("GET", "/audit-logs?size=5000"), 400, 3, "size");
}

// Runs sluicectl against the stack; returns (exit code, output).
std::pair<int, std::string> Ctl(const Stack& stack, std::vector<std::string> args) {
  std::vector<std::string> argv = {Runfile("cli/sluicectl"), "--host", stack.grpc_target(),
                                   "--email", "cli@example.com", "--json"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto p = Process::Start(argv, stack.ClientEnv());
  if (!p.ok()) return {-1, std::string(p.status().message())};
  int code = (*p)->Wait(absl::Seconds(30));
  return {code, (*p)->Output()};
}

TEST_F(AccessTest, SluicectlPolicyAndProvider) {
  std::string dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  std::ofstream(dir + "/policy.yaml") << R"(id: cli-policy
description: from a YAML file
steps:
  - name: lead
    strategy: manual
    approvers: [lead@example.com]
appeal:
  duration_options:
    - {name: week, value: 168h}
)";
  std::ofstream(dir + "/provider.yaml") << R"(type: noop
urn: cli-noop
allowed_account_types: [user]
resources:
  - type: noop
    policy: {id: cli-policy, version: 1}
    roles:
      - {id: member, name: Member}
)";
  auto [code, out] = Ctl(*stack_, {"policy", "create", "-f", dir + "/policy.yaml"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(json::parse(out)["policy"]["version"], 1) << out;
  EXPECT_EQ(json::parse(out)["policy"]["created_by"], "cli@example.com");
  std::tie(code, out) = Ctl(*stack_, {"policy", "update", "-f", dir + "/policy.yaml"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(json::parse(out)["policy"]["version"], 2);
  std::tie(code, out) = Ctl(*stack_, {"policy", "get", "cli-policy", "--version", "1"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(json::parse(out)["policy"]["version"], 1);
  std::tie(code, out) = Ctl(*stack_, {"policy", "list"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("cli-policy"), std::string::npos);
  // Every version is listed (as Guardian), so the table shows the version.
  std::tie(code, out) = Ctl(*stack_, {"-o", "table", "policy", "list"});
  ASSERT_EQ(code, 0) << out;
  std::vector<std::string> lines = absl::StrSplit(out, '\n');
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find("VERSION"), std::string::npos) << out;
  std::vector<std::string> cli_versions;
  for (const std::string& line : lines) {
    std::vector<std::string> cells = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (cells.size() >= 2 && cells[0] == "cli-policy") cli_versions.push_back(cells[1]);
  }
  EXPECT_EQ(cli_versions, (std::vector<std::string>{"1", "2"})) << out;
  std::tie(code, out) = Ctl(*stack_, {"policy", "create", "-f", dir + "/policy.yaml"});
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("error: 6:"), std::string::npos) << out;

  std::tie(code, out) = Ctl(*stack_, {"provider", "create", "-f", dir + "/provider.yaml"});
  ASSERT_EQ(code, 0) << out;
  std::string id = json::parse(out)["provider"]["id"];
  std::tie(code, out) = Ctl(*stack_, {"provider", "get", id});
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(json::parse(out)["provider"]["urn"], "cli-noop");
  std::tie(code, out) = Ctl(*stack_, {"provider", "update", id, "-f", dir + "/provider.yaml"});
  ASSERT_EQ(code, 0) << out;
  std::tie(code, out) = Ctl(*stack_, {"provider", "list"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("cli-noop"), std::string::npos);
  std::tie(code, out) = Ctl(*stack_, {"provider", "get", "00000000-0000-0000-0000-000000000000"});
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("error: 5:"), std::string::npos) << out;
}

}  // namespace
}  // namespace sluice::integration
