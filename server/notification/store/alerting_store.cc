// Alert providers, namespaces and rules on PostgreSQL
// (migrations/0012_alerting.up.sql).
#include "absl/strings/str_cat.h"
#include "server/notification/store/sql_util.h"
#include "server/notification/store/store.h"

namespace sluice::notification {

using namespace sqlutil;  // NOLINT: local helpers

namespace {

const std::string kProviderCols = "id, host, urn, name, type, credentials, labels::text, " +
                                  Micros("created_at") + ", " + Micros("updated_at");
const std::string kNamespaceCols = "id, provider_id, urn, name, credentials, labels::text, " +
                                   Micros("created_at") + ", " + Micros("updated_at");
const std::string kRuleCols = "id, name, namespace, group_name, template, enabled::int, "
                              "variables::text, namespace_id, " +
                              Micros("created_at") + ", " + Micros("updated_at");

AlertProvider ProviderFromRow(const soci::row& row, std::string* credentials) {
  AlertProvider p;
  p.id = static_cast<uint64_t>(row.get<long long>(0));
  p.host = row.get<std::string>(1);
  p.urn = row.get<std::string>(2);
  p.name = row.get<std::string>(3);
  p.type = row.get<std::string>(4);
  if (credentials != nullptr) *credentials = row.get<std::string>(5);
  p.labels = LabelsFromText(row.get<std::string>(6));
  p.created_at = TimeFromMicros(row.get<long long>(7));
  p.updated_at = TimeFromMicros(row.get<long long>(8));
  return p;
}

AlertNamespace NamespaceFromRow(const soci::row& row, std::string* credentials) {
  AlertNamespace n;
  n.id = static_cast<uint64_t>(row.get<long long>(0));
  n.provider_id = static_cast<uint64_t>(row.get<long long>(1));
  n.urn = row.get<std::string>(2);
  n.name = row.get<std::string>(3);
  if (credentials != nullptr) *credentials = row.get<std::string>(4);
  n.labels = LabelsFromText(row.get<std::string>(5));
  n.created_at = TimeFromMicros(row.get<long long>(6));
  n.updated_at = TimeFromMicros(row.get<long long>(7));
  return n;
}

std::string VariablesText(const std::vector<RuleVariable>& vars) {
  nlohmann::json j = nlohmann::json::array();
  for (const RuleVariable& v : vars) {
    j.push_back({{"name", v.name}, {"value", v.value}, {"type", v.type},
                 {"description", v.description}});
  }
  return j.dump();
}

AlertRule RuleFromRow(const soci::row& row) {
  AlertRule r;
  r.id = static_cast<uint64_t>(row.get<long long>(0));
  r.name = row.get<std::string>(1);
  r.rule_namespace = row.get<std::string>(2);
  r.group_name = row.get<std::string>(3);
  r.template_name = row.get<std::string>(4);
  r.enabled = row.get<int>(5) != 0;
  nlohmann::json vars = JsonFromText(row.get<std::string>(6));
  for (const nlohmann::json& v : vars.is_array() ? vars : nlohmann::json::array()) {
    r.variables.push_back({v.value("name", ""), v.value("value", ""), v.value("type", ""),
                           v.value("description", "")});
  }
  r.namespace_id = static_cast<uint64_t>(row.get<long long>(7));
  r.created_at = TimeFromMicros(row.get<long long>(8));
  r.updated_at = TimeFromMicros(row.get<long long>(9));
  return r;
}

}  // namespace

// ---- Providers ----

absl::StatusOr<uint64_t> PostgresAlertingRepository::CreateProvider(
    const AlertProvider& p, const std::string& credentials) {
  long long id = 0;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    int taken = 0;
    sql << "SELECT count(*) FROM alert_providers WHERE urn = :u", soci::use(p.urn),
        soci::into(taken);
    if (taken > 0) {
      return absl::AlreadyExistsError(absl::StrCat("urn: provider \"", p.urn, "\" already exists"));
    }
    std::string labels = LabelsText(p.labels);
    sql << "INSERT INTO alert_providers (host, urn, name, type, credentials, labels) VALUES "
           "(:h, :u, :n, :t, :c, CAST(:l AS jsonb)) RETURNING id",
        soci::use(p.host), soci::use(p.urn), soci::use(p.name), soci::use(p.type),
        soci::use(credentials), soci::use(labels), soci::into(id);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return static_cast<uint64_t>(id);
}

absl::StatusOr<AlertProvider> PostgresAlertingRepository::GetProvider(uint64_t id,
                                                                      std::string* credentials) {
  std::optional<AlertProvider> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    long long lid = static_cast<long long>(id);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kProviderCols << " FROM alert_providers WHERE id = :id",
         soci::use(lid));
    for (const soci::row& row : rs) out = ProviderFromRow(row, credentials);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (!out) return absl::NotFoundError(absl::StrCat("provider ", id, " not found"));
  return *out;
}

absl::StatusOr<std::vector<AlertProvider>> PostgresAlertingRepository::ListProviders(
    absl::string_view urn, absl::string_view type) {
  std::vector<AlertProvider> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    std::string u(urn), t(type);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kProviderCols
                     << " FROM alert_providers WHERE urn = COALESCE(NULLIF(CAST(:u AS text), ''), "
                        "urn) AND type = COALESCE(NULLIF(CAST(:t AS text), ''), type) ORDER BY id",
         soci::use(u), soci::use(t));
    for (const soci::row& row : rs) out.push_back(ProviderFromRow(row, nullptr));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status PostgresAlertingRepository::UpdateProvider(const AlertProvider& p,
                                                        const std::string& credentials) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    long long id = static_cast<long long>(p.id);
    std::string labels = LabelsText(p.labels);
    soci::statement st = (sql.prepare << "UPDATE alert_providers SET host = :h, name = :n, "
                                         "type = :t, credentials = :c, labels = CAST(:l AS jsonb), "
                                         "updated_at = now() WHERE id = :id",
                          soci::use(p.host), soci::use(p.name), soci::use(p.type),
                          soci::use(credentials), soci::use(labels), soci::use(id));
    st.execute(true);
    if (Affected(st) == 0) return absl::NotFoundError(absl::StrCat("provider ", p.id, " not found"));
    return absl::OkStatus();
  });
}

absl::Status PostgresAlertingRepository::DeleteProvider(uint64_t id) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    long long lid = static_cast<long long>(id);
    int used = 0;
    sql << "SELECT count(*) FROM alert_namespaces WHERE provider_id = :id", soci::use(lid),
        soci::into(used);
    if (used > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("provider ", id, " has ", used, " namespace(s): delete them first"));
    }
    soci::statement st =
        (sql.prepare << "DELETE FROM alert_providers WHERE id = :id", soci::use(lid));
    st.execute(true);
    if (Affected(st) == 0) return absl::NotFoundError(absl::StrCat("provider ", id, " not found"));
    return absl::OkStatus();
  });
}

// ---- Namespaces ----

absl::StatusOr<uint64_t> PostgresAlertingRepository::CreateNamespace(
    const AlertNamespace& n, const std::string& credentials) {
  long long id = 0;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    long long pid = static_cast<long long>(n.provider_id);
    int taken = 0;
    sql << "SELECT count(*) FROM alert_namespaces WHERE provider_id = :p AND urn = :u",
        soci::use(pid), soci::use(n.urn), soci::into(taken);
    if (taken > 0) {
      return absl::AlreadyExistsError(
          absl::StrCat("urn: namespace \"", n.urn, "\" already exists on provider ", pid));
    }
    std::string labels = LabelsText(n.labels);
    sql << "INSERT INTO alert_namespaces (provider_id, urn, name, credentials, labels) VALUES "
           "(:p, :u, :n, :c, CAST(:l AS jsonb)) RETURNING id",
        soci::use(pid), soci::use(n.urn), soci::use(n.name), soci::use(credentials),
        soci::use(labels), soci::into(id);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return static_cast<uint64_t>(id);
}

absl::StatusOr<AlertNamespace> PostgresAlertingRepository::GetNamespace(uint64_t id,
                                                                        std::string* credentials) {
  std::optional<AlertNamespace> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    long long lid = static_cast<long long>(id);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kNamespaceCols << " FROM alert_namespaces WHERE id = :id",
         soci::use(lid));
    for (const soci::row& row : rs) out = NamespaceFromRow(row, credentials);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (!out) return absl::NotFoundError(absl::StrCat("namespace ", id, " not found"));
  return *out;
}

absl::StatusOr<std::vector<AlertNamespace>> PostgresAlertingRepository::ListNamespaces(
    uint64_t provider_id) {
  std::vector<AlertNamespace> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    long long pid = static_cast<long long>(provider_id);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kNamespaceCols
                     << " FROM alert_namespaces WHERE CAST(:p AS bigint) IN (0, provider_id) "
                        "ORDER BY id",
         soci::use(pid));
    for (const soci::row& row : rs) out.push_back(NamespaceFromRow(row, nullptr));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status PostgresAlertingRepository::UpdateNamespace(const AlertNamespace& n,
                                                         const std::string& credentials) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    long long id = static_cast<long long>(n.id);
    std::string labels = LabelsText(n.labels);
    soci::statement st = (sql.prepare << "UPDATE alert_namespaces SET name = :n, "
                                         "credentials = :c, labels = CAST(:l AS jsonb), "
                                         "updated_at = now() WHERE id = :id",
                          soci::use(n.name), soci::use(credentials), soci::use(labels),
                          soci::use(id));
    st.execute(true);
    if (Affected(st) == 0) return absl::NotFoundError(absl::StrCat("namespace ", n.id, " not found"));
    return absl::OkStatus();
  });
}

absl::Status PostgresAlertingRepository::DeleteNamespace(uint64_t id) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    long long lid = static_cast<long long>(id);
    int used = 0;
    sql << "SELECT count(*) FROM alert_rules WHERE namespace_id = :id AND enabled",
        soci::use(lid), soci::into(used);
    if (used > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("namespace ", id, " has ", used, " enabled rule(s): disable them first"));
    }
    sql << "DELETE FROM alert_rules WHERE namespace_id = :id", soci::use(lid);
    soci::statement st =
        (sql.prepare << "DELETE FROM alert_namespaces WHERE id = :id", soci::use(lid));
    st.execute(true);
    if (Affected(st) == 0) return absl::NotFoundError(absl::StrCat("namespace ", id, " not found"));
    return absl::OkStatus();
  });
}

// ---- Rules ----

absl::StatusOr<std::vector<AlertRule>> PostgresAlertingRepository::ListRules(
    const AlertRuleFilter& f) {
  std::vector<AlertRule> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    std::string name = f.name, ns = f.rule_namespace, group = f.group_name, tmpl = f.template_name;
    long long nid = static_cast<long long>(f.namespace_id);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kRuleCols
                     << " FROM alert_rules WHERE "
                        "name = COALESCE(NULLIF(CAST(:a AS text), ''), name) AND "
                        "namespace = COALESCE(NULLIF(CAST(:b AS text), ''), namespace) AND "
                        "group_name = COALESCE(NULLIF(CAST(:c AS text), ''), group_name) AND "
                        "template = COALESCE(NULLIF(CAST(:d AS text), ''), template) AND "
                        "CAST(:e AS bigint) IN (0, namespace_id) ORDER BY id",
         soci::use(name), soci::use(ns), soci::use(group), soci::use(tmpl), soci::use(nid));
    for (const soci::row& row : rs) out.push_back(RuleFromRow(row));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<AlertRule> PostgresAlertingRepository::UpsertRule(const AlertRule& r) {
  std::optional<AlertRule> out;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    std::string vars = VariablesText(r.variables);
    int enabled = r.enabled ? 1 : 0;
    long long nid = static_cast<long long>(r.namespace_id);
    soci::rowset<soci::row> rs =
        (sql.prepare << "INSERT INTO alert_rules (name, namespace, group_name, template, enabled, "
                        "variables, namespace_id) VALUES (:a, :b, :c, :d, CAST(:e AS int) = 1, "
                        "CAST(:f AS jsonb), :g) ON CONFLICT (name) DO UPDATE SET "
                        "enabled = EXCLUDED.enabled, variables = EXCLUDED.variables, "
                        "updated_at = now() RETURNING "
                     << kRuleCols,
         soci::use(r.name), soci::use(r.rule_namespace), soci::use(r.group_name),
         soci::use(r.template_name), soci::use(enabled), soci::use(vars), soci::use(nid));
    for (const soci::row& row : rs) out = RuleFromRow(row);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (!out) return absl::InternalError("rule upsert returned no row");
  return *out;
}

}  // namespace sluice::notification
