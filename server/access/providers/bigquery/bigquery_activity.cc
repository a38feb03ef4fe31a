#include "server/access/providers/bigquery/bigquery_activity.h"

#include <set>
#include <utility>

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/access/core/json.h"

namespace sluice::access::bigquery {
namespace {

// Guardian's filter uses ("a" OR "b") lists of quoted values; a quote or
// backslash inside a value is escaped as Cloud Logging's query language
// reads string literals.
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string AnyOf(const std::vector<std::string>& values) {
  std::vector<std::string> q;
  for (const auto& v : values) q.push_back(Quoted(v));
  return absl::StrCat("(", absl::StrJoin(q, " OR "), ")");
}

// Entries a page: audit entries of jobs carry their query and metadata (often
// 5-20 KB), and GoogleApi caps an answer at 16 MiB.
constexpr int kPageSize = 500;
// Pages of one entries.list at most.
constexpr int kMaxPages = 2000;

}  // namespace

const std::vector<std::string>& AuditMethods() {
  static const auto* methods = new std::vector<std::string>{
      "google.cloud.bigquery.v2.TableService.InsertTable",
      "google.cloud.bigquery.v2.TableService.UpdateTable",
      "google.cloud.bigquery.v2.TableService.PatchTable",
      "google.cloud.bigquery.v2.TableService.DeleteTable",
      "google.cloud.bigquery.v2.DatasetService.InsertDataset",
      "google.cloud.bigquery.v2.DatasetService.UpdateDataset",
      "google.cloud.bigquery.v2.DatasetService.PatchDataset",
      "google.cloud.bigquery.v2.DatasetService.DeleteDataset",
      "google.cloud.bigquery.v2.TableDataService.List",
      "google.cloud.bigquery.v2.JobService.InsertJob",
      "google.cloud.bigquery.v2.JobService.Query",
      "google.cloud.bigquery.v2.JobService.GetQueryResults",
  };
  return *methods;
}

std::string FullResourceName(const v1beta1::Resource& r) {
  auto colon = r.urn().find(':');
  if (colon == std::string::npos) return "";
  std::string project = r.urn().substr(0, colon), rest = r.urn().substr(colon + 1);
  if (r.type() == "table") {
    auto dot = rest.find('.');
    if (dot == std::string::npos) return "";
    return absl::StrCat("projects/", project, "/datasets/", rest.substr(0, dot), "/tables/",
                        rest.substr(dot + 1));
  }
  return absl::StrCat("projects/", project, "/datasets/", rest);
}

std::string EntriesFilter(const ActivityQuery& q) {
  std::vector<std::string> parts = {R"(protoPayload.serviceName="bigquery.googleapis.com")",
                                    R"(resource.type="bigquery_dataset")"};
  if (!q.account_ids.empty()) {
    parts.push_back(absl::StrCat("protoPayload.authenticationInfo.principalEmail=",
                                 AnyOf(q.account_ids)));
  }
  if (!q.resources.empty()) {
    std::vector<std::string> names;
    for (const auto& r : q.resources) names.push_back(FullResourceName(r));
    parts.push_back(absl::StrCat("protoPayload.resourceName:", AnyOf(names)));
  }
  parts.push_back(absl::StrCat("protoPayload.methodName=", AnyOf(AuditMethods())));
  if (!q.timestamp_gte.empty()) parts.push_back(absl::StrCat("timestamp>=", Quoted(q.timestamp_gte)));
  if (!q.timestamp_lte.empty()) parts.push_back(absl::StrCat("timestamp<=", Quoted(q.timestamp_lte)));
  return absl::StrJoin(parts, " AND ");
}

absl::StatusOr<v1beta1::ProviderActivity> EntryToActivity(const gcp::Json& e) {
  v1beta1::ProviderActivity a;
  std::string ts = e.value("timestamp", "");
  if (!google::protobuf::util::TimeUtil::FromString(ts, a.mutable_timestamp())) {
    return absl::InvalidArgumentError(absl::StrCat("log entry ", e.value("insertId", ""),
                                                   ": timestamp \"", ts, "\" is not RFC 3339"));
  }
  a.set_provider_activity_id(e.value("insertId", ""));
  if (!e.contains("protoPayload") || !e["protoPayload"].is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("log entry ", a.provider_activity_id(), ": no protoPayload"));
  }
  const gcp::Json& p = e["protoPayload"];
  a.set_type(p.value("methodName", ""));
  if (p.contains("authenticationInfo") && p["authenticationInfo"].is_object()) {
    const gcp::Json& auth = p["authenticationInfo"];
    a.set_account_type(auth.value("serviceAccountKeyName", "").empty() ? "user"
                                                                       : "serviceAccount");
    a.set_account_id(auth.value("principalEmail", ""));
  }
  for (const auto& ai : p.value("authorizationInfo", gcp::Json::array())) {
    if (ai.is_object()) a.add_authorizations(ai.value("permission", ""));
  }
  // projects/<p>/datasets/<d>[/tables/<t>] (Guardian's BigQueryResourceName).
  std::vector<std::string> items = absl::StrSplit(p.value("resourceName", ""), '/');
  auto item = [&](size_t i) { return i < items.size() ? items[i] : std::string(); };
  v1beta1::Resource* r = a.mutable_resource();
  std::string urn = absl::StrCat(item(1), ":", item(3));
  if (!item(5).empty()) {
    r->set_type("table");
    r->set_name(item(5));
    urn = absl::StrCat(urn, ".", item(5));
  } else {
    r->set_type("dataset");
    r->set_name(item(3));
  }
  r->set_urn(urn);
  gcp::Json entry = {{"payload", p}, {"insert_id", e.value("insertId", "")},
                     {"severity", e.value("severity", "")}, {"timestamp", ts}};
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"resource", "resource"}, {"labels", "labels"}, {"operation", "operation"},
           {"trace", "trace"}, {"sourceLocation", "source_location"}, {"spanId", "span_id"},
           {"traceSampled", "trace_sampled"}}) {
    if (e.contains(from)) entry[to] = e[from];
  }
  (void)JsonStringToProto(gcp::Json{{"logging_entry", entry}}.dump(), a.mutable_metadata());
  return a;
}

std::string IamRole(const std::string& permission) {
  if (permission == "READER") return "roles/bigquery.dataViewer";
  if (permission == "WRITER") return "roles/bigquery.dataEditor";
  if (permission == "OWNER") return "roles/bigquery.dataOwner";
  return permission;
}

RolesByPermission RolesOfPermissions(
    const v1beta1::ProviderConfig& config,
    const std::map<std::string, std::vector<std::string>>& role_permissions) {
  RolesByPermission out;
  for (const auto& rc : config.resources()) {
    for (const auto& role : rc.roles()) {
      for (const auto& v : role.permissions()) {
        std::string configured = PermissionString(v);
        auto it = role_permissions.find(IamRole(configured));
        if (it == role_permissions.end()) continue;
        for (const auto& perm : it->second) out[rc.type()][perm].push_back(configured);
      }
    }
  }
  return out;
}

absl::StatusOr<std::vector<v1beta1::ProviderActivity>> ReadActivities(
    gcp::GoogleApi& api, const gcp::Credentials& creds, const v1beta1::ProviderConfig& config,
    const ActivityQuery& query) {
  std::vector<v1beta1::ProviderActivity> out;
  gcp::Json body = {{"resourceNames", {absl::StrCat("projects/", creds.ResourceId())}},
                    {"filter", EntriesFilter(query)},
                    {"pageSize", kPageSize}};
  for (int page = 0;; ++page) {
    if (page == kMaxPages) {
      return absl::FailedPreconditionError(
          absl::StrCat("entries.list: more than ", kMaxPages, " pages; narrow the import"));
    }
    auto doc = api.Call(creds, "POST", creds.Url(gcp::Api::kLogging) + "/entries:list", &body);
    if (!doc.ok()) return doc.status();
    for (const auto& e : doc->value("entries", gcp::Json::array())) {
      auto a = EntryToActivity(e);
      if (!a.ok()) return a.status();
      out.push_back(std::move(*a));
    }
    std::string token = doc->value("nextPageToken", "");
    if (token.empty()) break;
    body["pageToken"] = token;
  }
  if (out.empty()) return out;
  // Guardian's getGcloudRoles: each configured role's permissions, once.
  std::map<std::string, std::vector<std::string>> role_permissions;
  for (const auto& rc : config.resources()) {
    for (const auto& role : rc.roles()) {
      for (const auto& v : role.permissions()) {
        std::string iam = IamRole(PermissionString(v));
        if (role_permissions.count(iam) || !gcp::IsRoleName(iam)) continue;
        auto doc = api.Call(creds, "GET", absl::StrCat(creds.Url(gcp::Api::kIam), "/", iam));
        if (!doc.ok()) return doc.status();
        auto& perms = role_permissions[iam];
        for (const auto& p : doc->value("includedPermissions", gcp::Json::array())) {
          if (p.is_string()) perms.push_back(p.get<std::string>());
        }
      }
    }
  }
  RolesByPermission roles = RolesOfPermissions(config, role_permissions);
  for (auto& a : out) {
    std::set<std::string> related;
    auto by_type = roles.find(a.resource().type());
    if (by_type != roles.end()) {
      for (const auto& perm : a.authorizations()) {
        auto it = by_type->second.find(perm);
        if (it != by_type->second.end()) related.insert(it->second.begin(), it->second.end());
      }
    }
    for (const auto& r : related) a.add_related_permissions(r);
  }
  return out;
}

}  // namespace sluice::access::bigquery
