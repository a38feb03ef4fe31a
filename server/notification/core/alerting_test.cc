#include "server/notification/core/alerting.h"

#include "gtest/gtest.h"
#include "server/notification/core/fakes.h"
#include "server/notification/core/go_template.h"

namespace sluice::notification {
namespace {

// Records the last rule set and routes; fails SyncRules while `refuse`.
class FakeBackend : public RuleBackend {
 public:
  absl::Status SyncRules(const AlertProvider&, const AlertNamespace&,
                         const std::map<std::string, RuleGroups>& groups) override {
    if (!refuse.empty()) return absl::FailedPreconditionError(refuse);
    last = groups;
    ++rule_syncs;
    return absl::OkStatus();
  }
  absl::Status SyncRoutes(const std::vector<NamespaceRoute>& r) override {
    if (!refuse_routes.empty()) return absl::FailedPreconditionError(refuse_routes);
    routes = r;
    return absl::OkStatus();
  }
  absl::Status RemoveRoute(const NamespaceRoute& r) override {
    if (!refuse_remove.empty()) return absl::FailedPreconditionError(refuse_remove);
    removed.push_back(r.ns.id);
    return absl::OkStatus();
  }
  std::map<std::string, RuleGroups> last;
  std::vector<NamespaceRoute> routes;
  std::vector<uint64_t> removed;  // namespace ids
  std::string refuse, refuse_routes, refuse_remove;
  int rule_syncs = 0;
};

class AlertingServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Template t;
    t.name = "CPU";
    t.engine = kEngineGo;
    t.body =
        "- alert: CPUHighWarning\n"
        "  expr: avg by (host) (cpu_usage_user) > [[.warning]]\n"
        "  for: '[[.for]]'\n"
        "  labels:\n    team: '[[ .team ]]'\n";
    t.variables = {{"team", "string", "gotocompany", ""},
                   {"for", "string", "10m", ""},
                   {"warning", "int", "85", ""}};
    templates_repo.rows["CPU"] = t;
    AlertProvider p;
    p.host = "http://prom:9090";
    p.urn = "prom";
    p.name = "prom";
    p.type = "prometheus";
    p.credentials = {{"token", "s3cret"}};
    auto pid = service.CreateProvider(p);
    ASSERT_TRUE(pid.ok()) << pid.status();
    AlertNamespace n;
    n.urn = "team-a";
    n.name = "team-a";
    n.provider_id = *pid;
    auto nid = service.CreateNamespace(n);
    ASSERT_TRUE(nid.ok()) << nid.status();
    ns_id = *nid;
  }

  AlertRule Rule(bool enabled, std::vector<RuleVariable> vars = {}) {
    AlertRule r;
    r.enabled = enabled;
    r.group_name = "CPUHigh";
    r.rule_namespace = "team-a";
    r.template_name = "CPU";
    r.namespace_id = ns_id;
    r.variables = std::move(vars);
    return r;
  }

  testing::FakeTemplateRepository templates_repo;
  TemplateService templates{&templates_repo};
  testing::FakeAlertingRepository repo;
  FakeBackend backend;
  std::unique_ptr<Crypter> crypter = Crypter::Development();
  AlertingService service{&repo, &templates, crypter.get(), {{"prometheus", &backend}}};
  uint64_t ns_id = 0;
};

TEST_F(AlertingServiceTest, CredentialsEncryptedAndMasked) {
  EXPECT_TRUE(Crypter::IsEncrypted(repo.creds["p1"]));
  EXPECT_EQ(repo.creds["p1"].find("s3cret"), std::string::npos);
  auto p = service.GetProvider(1);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->credentials["token"], kMaskedSecret);
  // The namespace's route was registered.
  ASSERT_EQ(backend.routes.size(), 1u);
  EXPECT_EQ(backend.routes[0].ns.id, ns_id);
}

TEST_F(AlertingServiceTest, BadProviderFieldsAreNamed) {
  AlertProvider p;
  p.host = "file:///etc";
  p.urn = "x";
  p.name = "x";
  p.type = "prometheus";
  EXPECT_NE(service.CreateProvider(p).status().message().find("host"), std::string::npos);
  p.host = "http://h";
  p.type = "graphite";
  EXPECT_NE(service.CreateProvider(p).status().message().find("type"), std::string::npos);
  p.type = "prometheus";
  p.urn = "a/../b";
  EXPECT_NE(service.CreateProvider(p).status().message().find("urn"), std::string::npos);
}

TEST_F(AlertingServiceTest, UpsertRendersWithDefaultsUploadsAndStores) {
  auto saved = service.UpsertRule(Rule(true, {{"warning", "50", "int", ""}}));
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->name, "siren_api_prom_team-a_team-a_CPUHigh_CPU");
  ASSERT_EQ(saved->variables.size(), 3u);
  EXPECT_EQ(saved->variables[0].value, "gotocompany");
  const nlohmann::json& rule = backend.last["team-a"][0]["rules"][0];
  EXPECT_EQ(backend.last["team-a"][0]["name"], "CPUHigh");
  EXPECT_EQ(rule["expr"], "avg by (host) (cpu_usage_user) > 50");
  EXPECT_EQ(rule["for"], "10m");
  EXPECT_EQ(rule["labels"]["team"], "gotocompany");
}

TEST_F(AlertingServiceTest, DisabledRuleIsRemovedFromProvider) {
  ASSERT_TRUE(service.UpsertRule(Rule(true)).ok());
  ASSERT_EQ(backend.last["team-a"].size(), 1u);
  auto saved = service.UpsertRule(Rule(false));
  ASSERT_TRUE(saved.ok());
  EXPECT_FALSE(saved->enabled);
  ASSERT_EQ(backend.last.count("team-a"), 1u);  // sent empty: removed
  EXPECT_TRUE(backend.last["team-a"].empty());
}

TEST_F(AlertingServiceTest, FailedUploadLeavesStoredRuleAsItWas) {
  ASSERT_TRUE(service.UpsertRule(Rule(true, {{"warning", "50", "", ""}})).ok());
  backend.refuse = "prometheus provider prom reload: HTTP 500 (the provider failed)";
  auto st = service.UpsertRule(Rule(true, {{"warning", "60", "", ""}}));
  EXPECT_EQ(st.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(st.status().message().find("HTTP 500"), std::string::npos);
  auto rules = service.ListRules({});
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].variables[2].value, "50");
}

TEST_F(AlertingServiceTest, RenderedRulesAreValidated) {
  Template t = templates_repo.rows["CPU"];
  t.name = "Broken";
  t.body = "- alert: X\n  record: Y\n  expr: up\n";
  t.variables = {};
  templates_repo.rows["Broken"] = t;
  AlertRule r = Rule(true);
  r.template_name = "Broken";
  auto st = service.UpsertRule(r);
  EXPECT_EQ(st.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.status().message().find("exactly one of alert and record"), std::string::npos)
      << st.status();
  EXPECT_EQ(backend.rule_syncs, 0);
}

TEST_F(AlertingServiceTest, MaskedCredentialKeepsStoredValueOnUpdate) {
  AlertProvider p = *service.GetProvider(1);
  p.name = "prom-2";
  p.credentials = {{"token", kMaskedSecret}, {"user", "bob"}};
  ASSERT_TRUE(service.UpdateProvider(p).ok());
  std::string sealed = repo.creds["p1"];
  auto plain = crypter->Decrypt(sealed, "alerting/providers/http://prom:9090/credentials");
  ASSERT_TRUE(plain.ok()) << plain.status();
  auto j = nlohmann::json::parse(*plain);
  EXPECT_EQ(j["token"], "s3cret");
  EXPECT_EQ(j["user"], "bob");
  // A client may not send ciphertext back.
  p.credentials = {{"token", sealed}};
  EXPECT_EQ(service.UpdateProvider(p).code(), absl::StatusCode::kInvalidArgument);
}

// Credentials stay with their host (review R3 "Info and hardening"): a
// host change needs every stored credential again, in plain text.
TEST_F(AlertingServiceTest, HostChangeNeedsEveryCredentialAgain) {
  AlertProvider p = *service.GetProvider(1);
  p.host = "http://elsewhere.example:9090";
  p.credentials = {{"token", kMaskedSecret}};
  absl::Status st = service.UpdateProvider(p);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("credentials.token: must be supplied again"), std::string::npos)
      << st;
  p.credentials = nlohmann::json::object();  // omitted is no better
  EXPECT_EQ(service.UpdateProvider(p).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(repo.providers[1].host, "http://prom:9090");  // nothing changed

  p.credentials = {{"token", "new-s3cret"}};
  ASSERT_TRUE(service.UpdateProvider(p).ok());
  auto plain = crypter->Decrypt(repo.creds["p1"],
                                "alerting/providers/http://elsewhere.example:9090/credentials");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(nlohmann::json::parse(*plain)["token"], "new-s3cret");
}

TEST_F(AlertingServiceTest, NamespaceWhoseRouteIsRefusedIsNotKept) {
  backend.refuse_routes = "alertmanager reload: HTTP 400 (the provider refused the request)";
  AlertNamespace n;
  n.urn = "team-b";
  n.name = "team-b";
  n.provider_id = 1;
  auto id = service.CreateNamespace(n);
  EXPECT_EQ(id.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(id.status().message().find("HTTP 400"), std::string::npos);
  EXPECT_EQ(service.ListNamespaces()->size(), 1u);
}

// Review R3-M2: deleting a namespace removes its route from the provider's
// side (for cortex, the tenant's config with its hook token) before the
// namespace goes; the others are synced without it.
TEST_F(AlertingServiceTest, DeleteNamespaceRemovesItsRouteThenSyncsTheOthers) {
  AlertNamespace n;
  n.urn = "team-b";
  n.name = "team-b";
  n.provider_id = 1;
  auto b = service.CreateNamespace(n);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(backend.routes.size(), 2u);
  ASSERT_TRUE(service.DeleteNamespace(*b).ok());
  EXPECT_EQ(backend.removed, std::vector<uint64_t>{*b});
  ASSERT_EQ(backend.routes.size(), 1u);
  EXPECT_EQ(backend.routes[0].ns.id, ns_id);
  EXPECT_EQ(service.GetNamespace(*b).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(AlertingServiceTest, RefusedRouteRemovalKeepsTheNamespace) {
  backend.refuse_remove = "cortex provider c delete alertmanager config: HTTP 500";
  absl::Status st = service.DeleteNamespace(ns_id);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(service.GetNamespace(ns_id).ok());
}

TEST_F(AlertingServiceTest, NamespaceWithEnabledRulesKeepsItsRoute) {
  ASSERT_TRUE(service.UpsertRule(Rule(true)).ok());
  absl::Status st = service.DeleteNamespace(ns_id);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("enabled rule"), std::string::npos) << st;
  EXPECT_TRUE(backend.removed.empty());
  EXPECT_TRUE(service.GetNamespace(ns_id).ok());
}

// Review R3-M2: the namespace hook takes alerts only for a namespace that
// exists and belongs to the provider (type and id) of its URL.
TEST_F(AlertingServiceTest, HookNamespaceMustBelongToTheUrlsProvider) {
  EXPECT_TRUE(service.CheckHookNamespace("prometheus", 1, ns_id).ok());
  AlertProvider other;
  other.host = "http://prom-2:9090";
  other.urn = "prom-2";
  other.name = "prom-2";
  other.type = "prometheus";
  auto p2 = service.CreateProvider(other);
  ASSERT_TRUE(p2.ok()) << p2.status();
  EXPECT_EQ(service.CheckHookNamespace("prometheus", *p2, ns_id).code(),
            absl::StatusCode::kNotFound);  // another provider's namespace
  EXPECT_EQ(service.CheckHookNamespace("cortex", 1, ns_id).code(),
            absl::StatusCode::kNotFound);  // another type on the same id
  EXPECT_EQ(service.CheckHookNamespace("prometheus", 1, 999).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(service.DeleteNamespace(ns_id).ok());
  EXPECT_EQ(service.CheckHookNamespace("prometheus", 1, ns_id).code(),
            absl::StatusCode::kNotFound);  // deleted
}

TEST(ValidatePrometheusRules, NamesTheField) {
  auto j = nlohmann::json::parse(R"([{"alert":"A","expr":"up","for":"5 minutes"}])");
  EXPECT_NE(ValidatePrometheusRules(j, "t").message().find("t[0].for"), std::string::npos);
  j = nlohmann::json::parse(R"([{"record":"r","expr":""}])");
  EXPECT_NE(ValidatePrometheusRules(j, "t").message().find("t[0].expr"), std::string::npos);
  j = nlohmann::json::parse(R"([{"alert":"A","expr":"up","labels":{"a":{"b":1}}}])");
  EXPECT_NE(ValidatePrometheusRules(j, "t").message().find("t[0].labels.a"), std::string::npos);
}

}  // namespace
}  // namespace sluice::notification
