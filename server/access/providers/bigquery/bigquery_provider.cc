#include "server/access/providers/bigquery/bigquery_provider.h"

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/expr/expr.h"
#include "server/access/core/json.h"
#include "server/access/providers/bigquery/bigquery_activity.h"
#include "server/access/providers/gcp/gcp_api.h"

namespace sluice::access {
namespace {

using gcp::Api;
using gcp::Json;

// Dataset roles in legacy and IAM form (BigQuery REST reference,
// Dataset.access[].role: "OWNER <=> roles/bigquery.dataOwner, WRITER <=>
// roles/bigquery.dataEditor, READER <=> roles/bigquery.dataViewer"; the API
// returns the legacy form).
std::string LegacyRole(const std::string& role) {
  if (role == "roles/bigquery.dataOwner") return "OWNER";
  if (role == "roles/bigquery.dataEditor") return "WRITER";
  if (role == "roles/bigquery.dataViewer") return "READER";
  return role;
}
bool IsLegacyDatasetRole(const std::string& p) {
  return p == "READER" || p == "WRITER" || p == "OWNER";
}

struct Ids {
  std::string project, dataset, table;
};

// "<project>:<dataset>" or "<project>:<dataset>.<table>" (Guardian's urns).
absl::StatusOr<Ids> ParseUrn(const v1beta1::Resource& r) {
  Ids ids;
  auto colon = r.urn().find(':');
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bigquery resource urn \"", r.urn(), "\" must be <project>:<dataset>[.<table>]"));
  }
  ids.project = r.urn().substr(0, colon);
  std::string rest = r.urn().substr(colon + 1);
  if (r.type() == "table") {
    auto dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == rest.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bigquery table urn \"", r.urn(), "\" must be <project>:<dataset>.<table>"));
    }
    ids.dataset = rest.substr(0, dot);
    ids.table = rest.substr(dot + 1);
  } else if (r.type() == "dataset") {
    ids.dataset = rest;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("bigquery provider: unsupported resource type \"", r.type(), "\""));
  }
  if (ids.dataset.empty()) return absl::InvalidArgumentError("bigquery resource urn: empty dataset");
  return ids;
}

std::string DatasetUrl(const gcp::Credentials& c, const Ids& ids) {
  return absl::StrCat(c.Url(Api::kBigQuery), "/projects/", UrlEscape(ids.project), "/datasets/",
                      UrlEscape(ids.dataset));
}
std::string TableUrl(const gcp::Credentials& c, const Ids& ids) {
  return absl::StrCat(DatasetUrl(c, ids), "/tables/", UrlEscape(ids.table));
}

// The dataset access entry key of an account ("userByEmail", "groupByEmail").
std::string EntityKey(const std::string& account_type) {
  return account_type == "group" ? "groupByEmail" : "userByEmail";
}

// True when access entry `e` gives `role` to the account `id` under `key`.
// Emails compare ignoring case: BigQuery answers them in Google's canonical
// casing, not the one written (review F-H2).
bool SameEntry(const Json& e, const std::string& key, const std::string& id,
               const std::string& role) {
  return e.is_object() && e.contains(key) && e[key].is_string() &&
         absl::EqualsIgnoreCase(e[key].get<std::string>(), id) &&
         LegacyRole(e.value("role", "")) == LegacyRole(role);
}

void SetLabels(const Json& item, v1beta1::Resource* r) {
  if (!item.contains("labels") || !item["labels"].is_object() || item["labels"].empty()) return;
  google::protobuf::Struct labels;
  for (const auto& [k, v] : item["labels"].items()) {
    (*labels.mutable_fields())[k].set_string_value(v.is_string() ? v.get<std::string>() : v.dump());
  }
  auto& meta = (*r->mutable_details()->mutable_fields())["__metadata"];
  *(*meta.mutable_struct_value()->mutable_fields())["labels"].mutable_struct_value() = labels;
}

class BigQueryProvider : public ProviderClient {
 public:
  explicit BigQueryProvider(std::shared_ptr<HttpClient> http)
      : api_(std::make_unique<gcp::GoogleApi>("bigquery", std::move(http))) {}

  std::string Type() const override { return "bigquery"; }

  std::vector<std::string> GetAccountTypes() const override {
    return {"user", "serviceAccount", "group"};
  }

  absl::Status ValidateConfig(const v1beta1::ProviderConfig& config) const override {
    auto creds = gcp::ParseCredentials(config.credentials(), /*projects_only=*/true);
    if (!creds.ok()) return creds.status();
    bool need_dataset_roles = false, need_table_roles = false;
    for (int i = 0; i < config.resources_size(); ++i) {
      const auto& rc = config.resources(i);
      if (rc.type() != "dataset" && rc.type() != "table") {
        return absl::InvalidArgumentError(absl::StrCat(
            "resources[", i, "].type: \"", rc.type(),
            "\" is not a bigquery resource type (dataset, table)"));
      }
      for (int j = 0; j < rc.roles_size(); ++j) {
        std::string f = absl::StrCat("resources[", i, "].roles[", j, "].permissions");
        if (rc.roles(j).permissions().empty()) return absl::InvalidArgumentError(f + ": required");
        for (const auto& permission : rc.roles(j).permissions()) {
          const std::string p = PermissionString(permission);
          if (rc.type() == "dataset" && IsLegacyDatasetRole(p)) continue;
          if (!gcp::IsRoleName(p)) {
            return absl::InvalidArgumentError(absl::StrCat(
                f, ": \"", p, "\" is not ",
                rc.type() == "dataset" ? "READER, WRITER, OWNER or an IAM role name"
                                       : "an IAM role name (roles/..., projects/*/roles/...)"));
          }
          (rc.type() == "dataset" ? need_dataset_roles : need_table_roles) = true;
        }
      }
    }
    // The real call: the key must yield a token and list the project's datasets.
    if (auto st = api_->CheckKey(*creds); !st.ok()) {
      return gcp::ProbeError(*api_, "get an access token", st);
    }
    std::string list = absl::StrCat(creds->Url(Api::kBigQuery), "/projects/",
                                     UrlEscape(creds->ResourceId()), "/datasets?maxResults=10");
    auto page = api_->Call(*creds, "GET", list);
    if (!page.ok()) {
      return gcp::ProbeError(*api_, absl::StrCat("list the datasets of ", creds->resource_name),
                             page.status());
    }
    if (!need_dataset_roles && !need_table_roles) return absl::OkStatus();
    // IAM role names must be grantable (Guardian: getGrantableRolesForDataset
    // / ForTables on a sample resource); a project without one cannot tell.
    std::vector<std::string> datasets;
    for (const auto& d : page->value("datasets", Json::array())) {
      datasets.push_back(d["datasetReference"].value("datasetId", ""));
    }
    std::string base = absl::StrCat("//bigquery.googleapis.com/projects/", creds->ResourceId());
    std::map<std::string, std::vector<std::string>> grantable;
    if (need_dataset_roles && !datasets.empty()) {
      auto roles = gcp::GrantableRoles(*api_, *creds, absl::StrCat(base, "/datasets/", datasets[0]));
      if (!roles.ok()) return gcp::ProbeError(*api_, "query grantable roles", roles.status());
      grantable["dataset"] = *roles;
    }
    if (need_table_roles) {
      for (const auto& d : datasets) {
        auto tables = api_->Call(*creds, "GET",
                                 absl::StrCat(DatasetUrl(*creds, {creds->ResourceId(), d, ""}),
                                              "/tables?maxResults=1"));
        if (!tables.ok()) return gcp::ProbeError(*api_, "list tables", tables.status());
        auto items = tables->value("tables", Json::array());
        if (items.empty()) continue;
        std::string t = items[0]["tableReference"].value("tableId", "");
        auto roles = gcp::GrantableRoles(*api_, *creds,
                                         absl::StrCat(base, "/datasets/", d, "/tables/", t));
        if (!roles.ok()) return gcp::ProbeError(*api_, "query grantable roles", roles.status());
        grantable["table"] = *roles;
        break;
      }
    }
    for (int i = 0; i < config.resources_size(); ++i) {
      const auto& rc = config.resources(i);
      auto it = grantable.find(rc.type());
      if (it == grantable.end()) continue;
      for (int j = 0; j < rc.roles_size(); ++j) {
        for (const auto& permission : rc.roles(j).permissions()) {
          const std::string p = PermissionString(permission);
          if (IsLegacyDatasetRole(p) && rc.type() == "dataset") continue;
          if (!std::binary_search(it->second.begin(), it->second.end(), p)) {
            return absl::InvalidArgumentError(absl::StrCat(
                "resources[", i, "].roles[", j, "].permissions: \"", p,
                "\" is not grantable on a BigQuery ", rc.type(),
                " of this project (IAM roles:queryGrantableRoles)"));
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<v1beta1::Resource>> GetResources(
      const v1beta1::ProviderConfig& config) override {
    auto creds = gcp::ParseCredentials(config.credentials(), true);
    if (!creds.ok()) return creds.status();
    const v1beta1::ResourceConfig* dataset_rc = nullptr;
    bool want_tables = false;
    for (const auto& rc : config.resources()) {
      if (rc.type() == "dataset") dataset_rc = &rc;
      want_tables |= rc.type() == "table";
    }
    std::shared_ptr<const expr::Program> dataset_filter;
    if (dataset_rc != nullptr && want_tables && !dataset_rc->filter().empty()) {
      auto program = expr::Program::Compile(dataset_rc->filter());
      if (!program.ok()) return program.status();
      dataset_filter = std::move(*program);
    }
    auto datasets = gcp::ListAll(*api_, *creds,
                                 absl::StrCat(creds->Url(Api::kBigQuery), "/projects/",
                                              UrlEscape(creds->ResourceId()),
                                              "/datasets?maxResults=1000"),
                                 "datasets");
    if (!datasets.ok()) return gcp::Outward(*api_, config, "listing datasets", datasets.status());
    std::vector<v1beta1::Resource> out;
    for (const auto& d : *datasets) {
      std::string project = d["datasetReference"].value("projectId", creds->ResourceId());
      std::string id = d["datasetReference"].value("datasetId", "");
      v1beta1::Resource r;
      r.set_type("dataset");
      r.set_urn(absl::StrCat(project, ":", id));
      r.set_name(id);
      SetLabels(d, &r);
      if (dataset_rc != nullptr) out.push_back(r);
      if (!want_tables) continue;
      if (dataset_filter) {
        // Guardian lists the tables of the datasets its filter keeps only.
        r.set_provider_type(config.type());
        r.set_provider_urn(config.urn());
        nlohmann::json doc = ProtoToJson(r);
        expr::Environment env;
        env.BindJson("$resource", &doc);
        auto keep = dataset_filter->EvaluateTruthy(env);
        if (!keep.ok() || !*keep) continue;
      }
      auto tables = gcp::ListAll(
          *api_, *creds,
          absl::StrCat(DatasetUrl(*creds, {project, id, ""}), "/tables?maxResults=1000"), "tables");
      if (!tables.ok()) {
        return gcp::Outward(*api_, config, absl::StrCat("listing tables of ", r.urn()),
                            tables.status());
      }
      for (const auto& t : *tables) {
        v1beta1::Resource tr;
        std::string tid = t["tableReference"].value("tableId", "");
        tr.set_type("table");
        tr.set_urn(absl::StrCat(project, ":", id, ".", tid));
        tr.set_name(tid);
        SetLabels(t, &tr);
        out.push_back(std::move(tr));
      }
    }
    return out;
  }

  absl::Status ValidateAccount(const v1beta1::ProviderConfig&, absl::string_view account_type,
                               absl::string_view account_id) override {
    return gcp::CheckAccount(std::string(account_type), std::string(account_id));
  }

  std::string NormalizeAccountId(absl::string_view account_type,
                                 absl::string_view account_id) const override {
    return gcp::NormalizeAccountId(account_type, account_id);
  }

  absl::Status GrantAccess(const v1beta1::ProviderConfig& config,
                           const AccessRequest& req) override {
    return Apply(config, req, /*grant=*/true);
  }
  absl::Status RevokeAccess(const v1beta1::ProviderConfig& config,
                            const AccessRequest& req) override {
    return Apply(config, req, /*grant=*/false);
  }

  // Cloud Audit Logs through Cloud Logging (bigquery_activity.h).
  bool SupportsActivities() const override { return true; }
  absl::StatusOr<std::vector<v1beta1::ProviderActivity>> GetActivities(
      const v1beta1::ProviderConfig& config, const ActivityQuery& query) override {
    auto creds = gcp::ParseCredentials(config.credentials(), true);
    if (!creds.ok()) return creds.status();
    auto got = bigquery::ReadActivities(*api_, *creds, config, query);
    if (!got.ok()) return gcp::Outward(*api_, config, "reading activities", got.status());
    return got;
  }

  absl::StatusOr<std::vector<ProviderAccess>> ListAccess(
      const v1beta1::ProviderConfig& config,
      const std::vector<v1beta1::Resource>& resources) override {
    auto creds = gcp::ParseCredentials(config.credentials(), true);
    if (!creds.ok()) return creds.status();
    std::vector<ProviderAccess> out;
    for (const auto& r : resources) {
      auto ids = ParseUrn(r);
      if (!ids.ok()) return ids.status();
      if (r.type() == "table") {
        Json body = {{"options", {{"requestedPolicyVersion", 1}}}};
        auto policy = api_->Call(*creds, "POST", TableUrl(*creds, *ids) + ":getIamPolicy", &body);
        if (!policy.ok()) return gcp::Outward(*api_, config, "reading " + r.urn(), policy.status());
        for (auto& a : gcp::AccessFromPolicy(*policy, r)) out.push_back(std::move(a));
        continue;
      }
      auto ds = api_->Call(*creds, "GET", DatasetUrl(*creds, *ids));
      if (!ds.ok()) return gcp::Outward(*api_, config, "reading " + r.urn(), ds.status());
      std::map<std::pair<std::string, std::string>, std::vector<std::string>> held;
      for (const auto& e : ds->value("access", Json::array())) {
        std::string role = e.value("role", "");
        if (e.contains("userByEmail")) {
          std::string email = gcp::NormalizeAccountId("user", e["userByEmail"].get<std::string>());
          // Guardian's getEntityType: service accounts are userByEmail entries too.
          std::string type =
              absl::EndsWith(email, ".gserviceaccount.com") ? "serviceAccount" : "user";
          held[{type, email}].push_back(role);
        } else if (e.contains("groupByEmail")) {
          held[{"group", gcp::NormalizeAccountId("group", e["groupByEmail"].get<std::string>())}]
              .push_back(role);
        } else if (e.contains("iamMember")) {
          std::string m = e["iamMember"];
          auto colon = m.find(':');
          if (colon != std::string::npos) {
            std::string type = m.substr(0, colon);
            held[{type, gcp::NormalizeAccountId(type, m.substr(colon + 1))}].push_back(role);
          }
        }
      }
      for (auto& [account, roles] : held) {
        out.push_back({r.type(), r.urn(), account.second, account.first,
                       gcp::Unique(std::move(roles))});
      }
    }
    return out;
  }

 private:
  absl::Status Apply(const v1beta1::ProviderConfig& config, const AccessRequest& req, bool grant) {
    auto creds = gcp::ParseCredentials(config.credentials(), true);
    if (!creds.ok()) return creds.status();
    auto ids = ParseUrn(req.resource);
    if (!ids.ok()) return ids.status();
    if (auto st = gcp::CheckRequest(config, req, GetAccountTypes()); !st.ok()) return st;
    std::string what = absl::StrCat(grant ? "granting " : "revoking ", req.role, " on ",
                                     req.resource.urn(), grant ? " to " : " from ",
                                     req.account_id);
    absl::Status st = api_->WithResourceLock(req.resource.urn(), [&] {
      return req.resource.type() == "table" ? ApplyTable(*creds, *ids, req, grant)
                                            : ApplyDataset(*creds, *ids, req, grant);
    });
    // What a revoke cannot find is gone already.
    if (!grant && absl::IsNotFound(st)) return absl::OkStatus();
    return gcp::Outward(*api_, config, what, st);
  }

  // One PATCH carries every permission: the grant is all or nothing.
  absl::Status ApplyDataset(const gcp::Credentials& creds, const Ids& ids,
                            const AccessRequest& req, bool grant) {
    std::string url = DatasetUrl(creds, ids);
    std::string key = EntityKey(req.account_type);
    auto read = [&]() { return api_->Call(creds, "GET", url); };
    absl::Status st = gcp::ReadModifyWrite(
        read,
        [&](Json* ds) {
          Json access = ds->value("access", Json::array());
          bool changed = false;
          if (grant) {
            for (const auto& p : req.permissions) {
              bool has = false;
              for (const auto& e : access) has |= SameEntry(e, key, req.account_id, p);
              if (!has) {
                access.push_back({{"role", p}, {key, req.account_id}});
                changed = true;
              }
            }
          } else {
            Json kept = Json::array();
            for (const auto& e : access) {
              bool drop = false;
              for (const auto& p : req.permissions) drop |= SameEntry(e, key, req.account_id, p);
              if (drop) {
                changed = true;
              } else {
                kept.push_back(e);
              }
            }
            access = kept;
          }
          (*ds)["access"] = access;
          return changed;
        },
        [&](const Json& ds) {
          Json patch = {{"access", ds["access"]}};
          return api_->Call(creds, "PATCH", url, &patch,
                            {"If-Match: " + ds.value("etag", "")})
              .status();
        });
    if (!st.ok() || grant) return st;
    // Never report a revoke BigQuery did not carry out: read it again.
    auto after = read();
    if (!after.ok()) return after.status();
    std::vector<std::string> left;
    for (const auto& e : after->value("access", Json::array())) {
      for (const auto& p : req.permissions) {
        if (SameEntry(e, key, req.account_id, p)) left.push_back(p);
      }
    }
    if (!left.empty()) {
      return gcp::StillBoundError(absl::StrCat(key, " ", req.account_id), gcp::Unique(left));
    }
    return absl::OkStatus();
  }

  absl::Status ApplyTable(const gcp::Credentials& creds, const Ids& ids, const AccessRequest& req,
                          bool grant) {
    std::string url = TableUrl(creds, ids);
    std::string member = gcp::Member(req.account_type, req.account_id);
    auto read = [&]() {
      Json body = {{"options", {{"requestedPolicyVersion", 1}}}};
      return api_->Call(creds, "POST", url + ":getIamPolicy", &body);
    };
    auto write = [&](const Json& policy) {
      Json body = {{"policy", policy}};
      return api_->Call(creds, "POST", url + ":setIamPolicy", &body).status();
    };
    if (!grant) return gcp::RevokeAndVerify(read, write, req.permissions, member);
    return gcp::ReadModifyWrite(
        read, [&](Json* policy) { return gcp::AddBindings(policy, req.permissions, member); },
        write);
  }

  std::unique_ptr<gcp::GoogleApi> api_;
};

}  // namespace

std::unique_ptr<ProviderClient> NewBigQueryProvider(std::shared_ptr<HttpClient> http) {
  return std::make_unique<BigQueryProvider>(std::move(http));
}

std::unique_ptr<ProviderClient> NewBigQueryProvider() {
  return NewBigQueryProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
}

}  // namespace sluice::access
