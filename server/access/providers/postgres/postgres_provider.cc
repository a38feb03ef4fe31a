#include "server/access/providers/postgres/postgres_provider.h"

#include <set>
#include <tuple>

#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/db/pool.h"

namespace sluice::access {
namespace {

const std::set<std::string>& AllowedPrivileges(const std::string& type) {
  static const auto* table = new std::set<std::string>{
      "SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", "ALL"};
  static const auto* database =
      new std::set<std::string>{"CONNECT", "CREATE", "TEMPORARY", "TEMP", "ALL"};
  static const auto* none = new std::set<std::string>{};
  if (type == "table") return *table;
  if (type == "database") return *database;
  return *none;
}

std::string Field(const google::protobuf::Struct& s, const std::string& key) {
  auto it = s.fields().find(key);
  if (it == s.fields().end()) return "";
  const auto& v = it->second;
  if (v.has_string_value()) return v.string_value();
  if (v.kind_case() == google::protobuf::Value::kNumberValue) {
    return std::to_string(static_cast<long long>(v.number_value()));
  }
  return "";
}

std::string Quote(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// True when the server gave up on a statement: statement_timeout (57014,
// query_canceled) or lock_timeout (55P03, lock_not_available).
bool TimedOut(const soci::postgresql_soci_error& e) {
  return e.sqlstate() == "57014" || e.sqlstate() == "55P03";
}

// The DeadlineExceeded of a statement that ran into the provider's timeouts.
absl::Status Deadline(const v1beta1::ProviderConfig& config, absl::string_view what,
                      const std::exception& e) {
  return absl::DeadlineExceededError(absl::StrCat(
      "postgres provider ", config.urn(), ": ", what,
      " gave up (credentials.statement_timeout_ms / lock_timeout_ms; is an object locked in the "
      "target database?): ", e.what()));
}

// Advisory-lock class ("SLAC") of the per-object lock around GRANT/REVOKE.
constexpr int32_t kAclLockClass = 0x534C4143;

// GRANT/REVOKE object clause: TABLE "s"."t" or DATABASE "d".
absl::StatusOr<std::string> ObjectClause(const v1beta1::Resource& r) {
  if (r.type() == "database") return absl::StrCat("DATABASE ", db::QuoteIdent(r.urn()));
  if (r.type() == "table") {
    std::string schema, table;
    auto f = r.details().fields();
    if (f.count("schema") && f.count("table")) {
      schema = f.at("schema").string_value();
      table = f.at("table").string_value();
    } else {
      auto dot = r.urn().find('.');
      if (dot == std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("table urn \"", r.urn(), "\" must be schema.table"));
      }
      schema = r.urn().substr(0, dot);
      table = r.urn().substr(dot + 1);
    }
    return absl::StrCat("TABLE ", db::QuoteIdent(schema), ".", db::QuoteIdent(table));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("postgres provider: unsupported resource type \"", r.type(), "\""));
}

absl::StatusOr<std::string> Privileges(const AccessRequest& req) {
  if (req.permissions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("role \"", req.role, "\" has no permissions"));
  }
  std::vector<std::string> privs;
  for (const auto& p : req.permissions) {
    std::string up = absl::AsciiStrToUpper(p);
    if (!AllowedPrivileges(req.resource.type()).count(up)) {
      return absl::InvalidArgumentError(absl::StrCat("privilege \"", p, "\" is not valid on a ",
                                                     req.resource.type()));
    }
    privs.push_back(up);
  }
  return absl::StrJoin(privs, ", ");
}

// InvalidArgument for an account id that never names exactly one role:
// `public` in any case (PostgreSQL's grammar turns the role name public into
// PUBLIC, every role, even when quoted: gram.y RoleSpec, finding M11) and
// the predefined pg_* roles (granting to one grants to all its members).
absl::Status CheckRoleName(absl::string_view account_id) {
  if (account_id.empty()) return absl::InvalidArgumentError("account_id: required");
  std::string lower = absl::AsciiStrToLower(account_id);
  if (lower == "public") {
    return absl::InvalidArgumentError(absl::StrCat(
        "account_id: \"", account_id,
        "\" is PostgreSQL's PUBLIC (every role), not one role; access is granted to a named role"));
  }
  if (absl::StartsWith(lower, "pg_")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "account_id: \"", account_id,
        "\" is in PostgreSQL's reserved pg_ namespace of predefined roles; access is granted to "
        "a named login or group role"));
  }
  return absl::OkStatus();
}

// Explicit privileges on the databases and on the tables of the
// credentials' database, one row per (type, urn, role, privilege), from the
// catalog ACLs (aclexplode). The object's owner (implicit privileges),
// PUBLIC (grantee 0, no pg_roles row) and the predefined pg_* roles are left
// out: none of them is access a grant can stand for.
constexpr char kListAccessSql[] =
    "SELECT 'database', d.datname::text, r.rolname::text, a.privilege_type "
    "FROM pg_database d, aclexplode(d.datacl) a, pg_roles r "
    "WHERE r.oid = a.grantee AND a.grantee <> d.datdba AND NOT d.datistemplate "
    "AND r.rolname NOT LIKE 'pg\\_%' "
    "UNION ALL "
    "SELECT 'table', n.nspname || '.' || c.relname, r.rolname::text, a.privilege_type "
    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(c.relacl) a, "
    "pg_roles r WHERE r.oid = a.grantee AND a.grantee <> c.relowner AND c.relkind IN ('r', 'p') "
    "AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
    "AND r.rolname NOT LIKE 'pg\\_%' ORDER BY 1, 2, 3, 4";

// `privilege` (upper case, as the catalog names it) spelled as the config's
// roles for `type` spell it (privileges are case-insensitive, but grants
// compare permissions as strings), so that an imported grant matches the
// role it stands for. TEMPORARY also matches a role's TEMP.
std::string ConfigSpelling(const v1beta1::ProviderConfig& config, const std::string& type,
                           const std::string& privilege) {
  for (const auto& rc : config.resources()) {
    if (rc.type() != type) continue;
    for (const auto& role : rc.roles()) {
      for (const auto& v : role.permissions()) {
        std::string p = PermissionString(v), up = absl::AsciiStrToUpper(p);
        if (up == privilege || (up == "TEMP" && privilege == "TEMPORARY")) return p;
      }
    }
  }
  return privilege;
}

class PostgresProvider : public ProviderClient {
 public:
  std::string Type() const override { return "postgres"; }

  absl::Status ValidateConfig(const v1beta1::ProviderConfig& config) const override {
    auto dsn = PostgresDsn(config.credentials());
    if (!dsn.ok()) return dsn.status();
    for (int i = 0; i < config.resources_size(); ++i) {
      const auto& rc = config.resources(i);
      if (rc.type() != "database" && rc.type() != "table") {
        return absl::InvalidArgumentError(absl::StrCat(
            "resources[", i, "].type: \"", rc.type(),
            "\" is not a postgres resource type (database, table)"));
      }
      for (int j = 0; j < rc.roles_size(); ++j) {
        const auto& role = rc.roles(j);
        std::string f = absl::StrCat("resources[", i, "].roles[", j, "].permissions");
        if (role.permissions().empty()) return absl::InvalidArgumentError(f + ": required");
        for (const auto& v : role.permissions()) {
          std::string p = PermissionString(v);
          if (!v.has_string_value() ||
              !AllowedPrivileges(rc.type()).count(absl::AsciiStrToUpper(p))) {
            return absl::InvalidArgumentError(absl::StrCat(
                f, ": \"", p, "\" is not a privilege on a ", rc.type(), " (allowed: ",
                absl::StrJoin(AllowedPrivileges(rc.type()), ", "), ")"));
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<v1beta1::Resource>> GetResources(
      const v1beta1::ProviderConfig& config) override {
    auto dsn = PostgresDsn(config.credentials());
    if (!dsn.ok()) return dsn.status();
    bool want_db = false, want_table = false;
    for (const auto& rc : config.resources()) {
      want_db |= rc.type() == "database";
      want_table |= rc.type() == "table";
    }
    std::vector<v1beta1::Resource> out;
    std::string dbname = Field(config.credentials(), "dbname");
    try {
      soci::session sql(soci::postgresql, *dsn);
      if (want_db) {
        soci::rowset<std::string> rows =
            (sql.prepare << "SELECT datname FROM pg_database WHERE NOT datistemplate "
                            "AND datallowconn ORDER BY 1");
        for (const auto& name : rows) {
          v1beta1::Resource r;
          r.set_type("database");
          r.set_urn(name);
          r.set_name(name);
          out.push_back(r);
        }
      }
      if (want_table) {
        soci::rowset<soci::row> rows =
            (sql.prepare << "SELECT table_schema::text, table_name::text FROM "
                            "information_schema.tables WHERE table_schema NOT IN "
                            "('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE' "
                            "ORDER BY 1, 2");
        for (const auto& row : rows) {
          std::string schema = row.get<std::string>(0), table = row.get<std::string>(1);
          v1beta1::Resource r;
          r.set_type("table");
          r.set_urn(absl::StrCat(schema, ".", table));
          r.set_name(r.urn());
          auto& f = *r.mutable_details()->mutable_fields();
          f["database"].set_string_value(dbname);
          f["schema"].set_string_value(schema);
          f["table"].set_string_value(table);
          out.push_back(r);
        }
      }
    } catch (const soci::postgresql_soci_error& e) {
      if (TimedOut(e)) return Deadline(config, "reading the catalog", e);
      return absl::FailedPreconditionError(
          absl::StrCat("postgres provider ", config.urn(), ": cannot read the catalog: ", e.what()));
    } catch (const std::exception& e) {
      return absl::FailedPreconditionError(
          absl::StrCat("postgres provider ", config.urn(), ": cannot read the catalog: ", e.what()));
    }
    return out;
  }

  std::vector<std::string> GetAccountTypes() const override { return {"user"}; }

  absl::Status ValidateAccount(const v1beta1::ProviderConfig& config, absl::string_view,
                               absl::string_view account_id) override {
    if (auto st = CheckRoleName(account_id); !st.ok()) return st;
    auto dsn = PostgresDsn(config.credentials());
    if (!dsn.ok()) return dsn.status();
    int found = 0;
    try {
      soci::session sql(soci::postgresql, *dsn);
      std::string name(account_id);
      sql << "SELECT count(*) FROM pg_roles WHERE rolname = :r", soci::into(found),
          soci::use(name);
    } catch (const soci::postgresql_soci_error& e) {
      if (TimedOut(e)) return Deadline(config, "checking account_id", e);
      return absl::FailedPreconditionError(absl::StrCat(
          "postgres provider ", config.urn(), ": cannot check account_id: ", e.what()));
    } catch (const std::exception& e) {
      return absl::FailedPreconditionError(absl::StrCat(
          "postgres provider ", config.urn(), ": cannot check account_id: ", e.what()));
    }
    if (found == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "account_id: \"", account_id, "\" is not a role of the PostgreSQL server of provider ",
          config.urn(), " (accounts are existing database roles)"));
    }
    return absl::OkStatus();
  }

  absl::Status GrantAccess(const v1beta1::ProviderConfig& config,
                           const AccessRequest& req) override {
    return Run(config, req, /*grant=*/true);
  }

  absl::StatusOr<std::vector<ProviderAccess>> ListAccess(
      const v1beta1::ProviderConfig& config,
      const std::vector<v1beta1::Resource>& resources) override {
    auto dsn = PostgresDsn(config.credentials());
    if (!dsn.ok()) return dsn.status();
    std::set<std::pair<std::string, std::string>> wanted;
    for (const auto& r : resources) wanted.insert({r.type(), r.urn()});
    std::vector<ProviderAccess> out;
    try {
      soci::session sql(soci::postgresql, *dsn);
      soci::rowset<soci::row> rows = (sql.prepare << kListAccessSql);
      for (const auto& row : rows) {
        ProviderAccess a;
        a.resource_type = row.get<std::string>(0);
        a.resource_urn = row.get<std::string>(1);
        if (!wanted.count({a.resource_type, a.resource_urn})) continue;
        a.account_id = row.get<std::string>(2);
        a.account_type = "user";
        a.permissions.push_back(ConfigSpelling(config, a.resource_type, row.get<std::string>(3)));
        out.push_back(std::move(a));
      }
    } catch (const soci::postgresql_soci_error& e) {
      if (TimedOut(e)) return Deadline(config, "reading privileges", e);
      return absl::FailedPreconditionError(absl::StrCat(
          "postgres provider ", config.urn(), ": cannot read privileges: ", e.what()));
    } catch (const std::exception& e) {
      return absl::FailedPreconditionError(absl::StrCat(
          "postgres provider ", config.urn(), ": cannot read privileges: ", e.what()));
    }
    return out;
  }
  absl::Status RevokeAccess(const v1beta1::ProviderConfig& config,
                            const AccessRequest& req) override {
    return Run(config, req, /*grant=*/false);
  }

 private:
  static absl::Status Run(const v1beta1::ProviderConfig& config, const AccessRequest& req,
                          bool grant) {
    auto dsn = PostgresDsn(config.credentials());
    if (!dsn.ok()) return dsn.status();
    auto object = ObjectClause(req.resource);
    if (!object.ok()) return object.status();
    auto privs = Privileges(req);
    if (!privs.ok()) return privs.status();
    // Also here: a grant recorded before the appeal-time check existed must
    // not reach PUBLIC either way (revoking from it would strip PUBLIC's
    // own privileges).
    if (auto st = CheckRoleName(req.account_id); !st.ok()) return st;
    std::string stmt =
        grant ? absl::StrCat("GRANT ", *privs, " ON ", *object, " TO ", db::QuoteIdent(req.account_id))
              : absl::StrCat("REVOKE ", *privs, " ON ", *object, " FROM ",
                             db::QuoteIdent(req.account_id));
    // PostgreSQL rejects concurrent GRANT/REVOKE on one object ("tuple
    // concurrently updated": both rewrite its ACL). Ours queue on an
    // advisory lock keyed by the object, held until COMMIT.
    std::string locked = absl::StrCat("BEGIN; ", db::AdvisoryXactLockSql(kAclLockClass, {*object}),
                                      "; ", stmt, "; COMMIT");
    try {
      soci::session sql(soci::postgresql, *dsn);
      sql << locked;
    } catch (const soci::postgresql_soci_error& e) {
      // Revoking from a role that no longer exists (42704) is already done.
      if (!grant && e.sqlstate() == "42704") return absl::OkStatus();
      if (TimedOut(e)) return Deadline(config, grant ? "GRANT" : "REVOKE", e);
      return absl::FailedPreconditionError(
          absl::StrCat("postgres provider ", config.urn(), ": ", grant ? "GRANT" : "REVOKE",
                       " failed: ", e.what()));
    } catch (const std::exception& e) {
      return absl::UnavailableError(absl::StrCat("postgres provider ", config.urn(), ": ",
                                                 e.what()));
    }
    return absl::OkStatus();
  }
};

}  // namespace

absl::StatusOr<std::string> PostgresDsn(const google::protobuf::Struct& credentials) {
  std::vector<std::string> parts;
  for (const char* key : {"host", "user", "dbname"}) {
    std::string v = Field(credentials, key);
    if (v.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("credentials.", key, ": required"));
    }
    parts.push_back(absl::StrCat(key, "=", Quote(v)));
  }
  for (const char* key : {"port", "password", "sslmode"}) {
    std::string v = Field(credentials, key);
    if (!v.empty()) parts.push_back(absl::StrCat(key, "=", Quote(v)));
  }
  parts.push_back("connect_timeout='10'");
  // Every statement on the target is bounded (review finding M4): a table
  // being altered there must not hold an approval, and the pooled Sluice
  // connection under it, forever.
  std::vector<std::string> settings;
  for (auto [key, setting, fallback] :
       {std::tuple<const char*, const char*, int>{"statement_timeout_ms", "statement_timeout",
                                                  kDefaultStatementTimeoutMs},
        {"lock_timeout_ms", "lock_timeout", kDefaultLockTimeoutMs}}) {
    std::string v = Field(credentials, key);
    int ms = fallback;
    if (!v.empty() && (!absl::SimpleAtoi(v, &ms) || ms < 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "credentials.", key, ": want milliseconds, a whole number ≥ 0 (0: no limit), got \"", v,
          "\""));
    }
    settings.push_back(absl::StrCat("-c ", setting, "=", ms));
  }
  parts.push_back(absl::StrCat("options=", Quote(absl::StrJoin(settings, " "))));
  return absl::StrJoin(parts, " ");
}

std::unique_ptr<ProviderClient> NewPostgresProvider() {
  return std::make_unique<PostgresProvider>();
}

}  // namespace sluice::access
