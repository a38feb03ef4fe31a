#include "server/access/providers/grafana/grafana_provider.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/access/core/json.h"

namespace sluice::access {
namespace {

using nlohmann::json;

constexpr int kSearchPage = 1000;  // GET /api/search: limit (max 5000), page from 1
constexpr int kUserPage = 100;
constexpr int kMergeAttempts = 5;

// Guardian's permissionCodes (config.go).
const std::map<std::string, int>& Levels() {
  static const auto* m = new std::map<std::string, int>{{"view", 1}, {"edit", 2}, {"admin", 4}};
  return *m;
}

std::string LevelName(int level) {
  for (const auto& [name, l] : Levels()) {
    if (l == level) return name;
  }
  return std::to_string(level);
}

// True for an item a dashboard inherits from its folder.
bool Inherited(const json& item) {
  auto it = item.find("inherited");
  return it != item.end() && it->is_boolean() && it->get<bool>();
}

// How to reach one Grafana as one caller.
struct Target {
  std::string base;
  std::vector<std::string> headers;  // Authorization and X-Grafana-Org-Id
};

absl::StatusOr<Target> ParseTarget(const v1beta1::ProviderConfig& config) {
  const auto& c = config.credentials();
  auto base = rest::BaseUrl(c);
  if (!base.ok()) return base.status();
  Target t{*base, {}};
  std::string key = rest::CredentialString(c, "api_key");
  if (!key.empty()) {
    t.headers.push_back("Authorization: Bearer " + key);
    return t;
  }
  std::string user = rest::CredentialString(c, "username");
  if (user.empty()) user = rest::CredentialString(c, "user");
  if (user.empty()) {
    return absl::InvalidArgumentError(
        "credentials.username: required (or credentials.api_key, a service account token)");
  }
  auto password = rest::RequiredCredential(c, "password");
  if (!password.ok()) return password.status();
  t.headers.push_back("Authorization: Basic " + absl::Base64Escape(user + ":" + *password));
  std::string org = rest::CredentialString(c, "org_id");
  long long n = 0;
  if (org.empty() && absl::SimpleAtoi(config.urn(), &n) && n > 0) org = config.urn();
  if (!org.empty()) t.headers.push_back("X-Grafana-Org-Id: " + org);
  return t;
}

// One resource's permission list: folders/:uid or dashboards/uid/:uid (or
// the id path for a dashboard without a uid).
std::string PermissionsPath(const v1beta1::Resource& r) {
  if (r.type() == "folder") return "/api/folders/" + UrlEscape(r.urn()) + "/permissions";
  auto f = r.details().fields().find("uid");
  if (f != r.details().fields().end() && !f->second.string_value().empty()) {
    return "/api/dashboards/uid/" + UrlEscape(f->second.string_value()) + "/permissions";
  }
  return "/api/dashboards/id/" + UrlEscape(r.urn()) + "/permissions";
}

class GrafanaProvider : public ProviderClient {
 public:
  GrafanaProvider(HttpClient* http, rest::CallLimits limits) : http_(http), limits_(limits) {}

  std::string Type() const override { return "grafana"; }
  std::vector<std::string> GetAccountTypes() const override { return {"user"}; }

  absl::Status ValidateConfig(const v1beta1::ProviderConfig& config) const override {
    auto t = ParseTarget(config);
    if (!t.ok()) return t.status();
    for (int i = 0; i < config.resources_size(); ++i) {
      const auto& rc = config.resources(i);
      if (rc.type() != "folder" && rc.type() != "dashboard") {
        return absl::InvalidArgumentError(
            absl::StrCat("resources[", i, "].type: \"", rc.type(),
                         "\" is not a grafana resource type (folder, dashboard)"));
      }
      for (int j = 0; j < rc.roles_size(); ++j) {
        std::string f = absl::StrCat("resources[", i, "].roles[", j, "].permissions");
        if (rc.roles(j).permissions().empty()) return absl::InvalidArgumentError(f + ": required");
        for (const auto& p : rc.roles(j).permissions()) {
          if (!p.has_string_value() || !Levels().count(p.string_value())) {
            return absl::InvalidArgumentError(
                absl::StrCat(f, ": \"", PermissionString(p),
                             "\" is not a grafana permission (view, edit, admin)"));
          }
        }
      }
    }
    auto r = Call(*t, "GET", "/api/org", std::nullopt);
    if (!r.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("credentials.host: cannot reach Grafana at ",
                                                     RedactUrl(t->base), ": ",
                                                     r.status().message()));
    }
    if (r->status == 401 || r->status == 403) {
      return absl::InvalidArgumentError(absl::StrCat(
          "credentials.username/credentials.password (or credentials.api_key): Grafana at ",
          RedactUrl(t->base), " refused them (HTTP ", r->status, ")"));
    }
    if (!r->ok()) return rest::VendorError("grafana GET /api/org", *r);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<v1beta1::Resource>> GetResources(
      const v1beta1::ProviderConfig& config) override {
    auto t = ParseTarget(config);
    if (!t.ok()) return t.status();
    auto folders = Search(*t, "dash-folder");
    if (!folders.ok()) return folders.status();
    // uid → (title, parent uid), for paths of nested folders (Grafana 10+).
    std::map<std::string, std::pair<std::string, std::string>> tree;
    for (const auto& f : *folders) {
      tree[rest::Str(f, "uid")] = {rest::Str(f, "title"), rest::Str(f, "folderUid")};
    }
    auto path_of = [&](std::string uid) {
      std::vector<std::string> parts;
      for (int depth = 0; !uid.empty() && tree.count(uid) && depth < 64; ++depth) {
        parts.insert(parts.begin(), tree[uid].first);
        uid = tree[uid].second;
      }
      return absl::StrJoin(parts, "/");
    };
    bool want_folder = false, want_dashboard = false;
    for (const auto& rc : config.resources()) {
      want_folder |= rc.type() == "folder";
      want_dashboard |= rc.type() == "dashboard";
    }
    std::vector<v1beta1::Resource> out;
    if (want_folder) {
      for (const auto& f : *folders) {
        v1beta1::Resource r;
        r.set_type("folder");
        r.set_urn(rest::Str(f, "uid"));
        r.set_name(rest::Str(f, "title"));
        json d = {
            {"id", rest::Int(f, "id")}, {"url", rest::Str(f, "url")}, {"path", path_of(r.urn())}};
        if (!rest::Str(f, "folderUid").empty()) d["parent_uid"] = rest::Str(f, "folderUid");
        *r.mutable_details() = JsonToStruct(d);
        out.push_back(std::move(r));
      }
    }
    if (want_dashboard) {
      auto dashboards = Search(*t, "dash-db");
      if (!dashboards.ok()) return dashboards.status();
      for (const auto& db : *dashboards) {
        v1beta1::Resource r;
        r.set_type("dashboard");
        r.set_urn(rest::Str(db, "id"));
        r.set_name(rest::Str(db, "title"));
        json d = {{"id", rest::Int(db, "id")},
                  {"uid", rest::Str(db, "uid")},
                  {"url", rest::Str(db, "url")},
                  {"tags", db.contains("tags") ? db["tags"] : json::array()}};
        std::string folder_uid = rest::Str(db, "folderUid");
        if (!folder_uid.empty()) {
          d["folder_id"] = rest::Int(db, "folderId");
          d["folder_uid"] = folder_uid;
          d["folder_title"] = rest::Str(db, "folderTitle");
          d["folder_path"] = path_of(folder_uid);
        }
        *r.mutable_details() = JsonToStruct(d);
        out.push_back(std::move(r));
      }
    }
    return out;
  }

  absl::Status ValidateAccount(const v1beta1::ProviderConfig& config, absl::string_view,
                               absl::string_view account_id) override {
    if (account_id.empty()) return absl::InvalidArgumentError("account_id: required");
    auto t = ParseTarget(config);
    if (!t.ok()) return t.status();
    auto users = FindUsers(*t, std::string(account_id));
    if (!users.ok()) return users.status();
    if (users->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "account_id: \"", account_id, "\" is not the email of a user of the Grafana organization "
          "of provider ", config.urn(), " (accounts are Grafana users' emails, never logins)"));
    }
    if (users->size() > 1) {
      return absl::InvalidArgumentError(Ambiguous(std::string(account_id), *users));
    }
    return absl::OkStatus();
  }

  absl::Status GrantAccess(const v1beta1::ProviderConfig& config,
                           const AccessRequest& req) override {
    return Apply(config, req, /*grant=*/true);
  }
  absl::Status RevokeAccess(const v1beta1::ProviderConfig& config,
                            const AccessRequest& req) override {
    return Apply(config, req, /*grant=*/false);
  }

  absl::StatusOr<std::vector<ProviderAccess>> ListAccess(
      const v1beta1::ProviderConfig& config,
      const std::vector<v1beta1::Resource>& resources) override {
    auto t = ParseTarget(config);
    if (!t.ok()) return t.status();
    std::vector<ProviderAccess> out;
    for (const auto& r : resources) {
      auto items = Permissions(*t, r);
      if (absl::IsNotFound(items.status())) continue;
      if (!items.ok()) return items.status();
      for (const auto& item : *items) {
        if (Inherited(item) || rest::Int(item, "userId") <= 0) continue;
        // Accounts are emails only (review F-L6): a user without one cannot
        // be a Sluice account, so it is not imported under its login.
        std::string account = rest::Str(item, "userEmail");
        if (account.empty()) continue;
        out.push_back({r.type(),
                       r.urn(),
                       account,
                       "user",
                       {LevelName(static_cast<int>(rest::Int(item, "permission")))}});
      }
    }
    return out;
  }

 private:
  absl::StatusOr<rest::JsonResponse> Call(const Target& t, const std::string& method,
                                          const std::string& path, std::optional<json> body) const {
    return rest::DoJson(*http_, {method, t.base + path, t.headers, std::move(body)}, limits_);
  }

  // Every hit of GET /api/search?type=`type`, page by page.
  absl::StatusOr<std::vector<json>> Search(const Target& t, const std::string& type) const {
    std::vector<json> out;
    for (int page = 1;; ++page) {
      auto r = Call(t, "GET",
                    absl::StrCat("/api/search?type=", type, "&limit=", kSearchPage, "&page=", page),
                    std::nullopt);
      if (!r.ok()) return r.status();
      if (!r->ok()) return rest::VendorError("grafana GET /api/search", *r);
      if (!r->body.is_array()) break;
      for (const auto& hit : r->body) out.push_back(hit);
      if (r->body.size() < kSearchPage) break;
    }
    return out;
  }

  // The ids of every organization user whose email is `account` (ignoring
  // ASCII case: Grafana's emails are case-insensitive), from every page of
  // GET /api/org/users/search. Never a login match: users may set their own
  // login, e.g. to a colleague's email (review F-L6).
  absl::StatusOr<std::vector<int>> FindUsers(const Target& t, const std::string& account) const {
    std::vector<int> out;
    for (int page = 1;; ++page) {
      auto r = Call(t, "GET",
                    absl::StrCat("/api/org/users/search?query=", UrlEscape(account),
                                 "&perpage=", kUserPage, "&page=", page),
                    std::nullopt);
      if (!r.ok()) return r.status();
      if (!r->ok()) return rest::VendorError("grafana GET /api/org/users/search", *r);
      const json& users = rest::Array(r->body, "orgUsers");
      for (const auto& u : users) {
        if (absl::EqualsIgnoreCase(rest::Str(u, "email"), account)) {
          int id = static_cast<int>(rest::Int(u, "userId"));
          if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
        }
      }
      if (users.size() < kUserPage || page * kUserPage >= rest::Int(r->body, "totalCount")) {
        return out;
      }
    }
  }

  // "account_id: ..." message for an email that more than one user has.
  static std::string Ambiguous(const std::string& account, const std::vector<int>& ids) {
    return absl::StrCat("account_id: \"", account, "\" is the email of ", ids.size(),
                        " Grafana users (ids ", absl::StrJoin(ids, ", "),
                        ", emails differing only in case); Sluice will not pick one: merge or "
                        "rename the duplicates in Grafana");
  }

  // The resource's permission items; NotFound when it is gone.
  absl::StatusOr<std::vector<json>> Permissions(const Target& t, const v1beta1::Resource& r) const {
    auto resp = Call(t, "GET", PermissionsPath(r), std::nullopt);
    if (!resp.ok()) return resp.status();
    if (resp->status == 404) return absl::NotFoundError(r.urn() + " is gone");
    if (!resp->ok()) return rest::VendorError("grafana GET " + r.type() + " permissions", *resp);
    if (!resp->body.is_array()) return std::vector<json>();
    return std::vector<json>(resp->body.begin(), resp->body.end());
  }

  absl::Status Apply(const v1beta1::ProviderConfig& config, const AccessRequest& req, bool grant) {
    const auto& r = req.resource;
    if (r.type() != "folder" && r.type() != "dashboard") {
      return absl::InvalidArgumentError(
          absl::StrCat("grafana provider: unsupported resource type \"", r.type(), "\""));
    }
    int level = 0;
    for (const auto& p : req.permissions) {
      auto it = Levels().find(p);
      if (it == Levels().end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("grafana permission \"", p, "\" is not view, edit or admin"));
      }
      level = std::max(level, it->second);
    }
    if (level == 0) {
      return absl::InvalidArgumentError(absl::StrCat("role \"", req.role, "\" has no permissions"));
    }
    auto t = ParseTarget(config);
    if (!t.ok()) return t.status();
    auto users = FindUsers(*t, req.account_id);
    if (!users.ok()) return users.status();
    if (users->empty()) {
      if (!grant) return absl::OkStatus();  // no such user: nothing to revoke
      return absl::FailedPreconditionError(absl::StrCat(
          "grafana provider ", config.urn(), ": account \"", req.account_id,
          "\" is not the email of a user of the Grafana organization (add the user to the "
          "organization first)"));
    }
    if (users->size() > 1) {
      return absl::FailedPreconditionError(
          absl::StrCat("grafana provider ", config.urn(), ": ", Ambiguous(req.account_id, *users)));
    }
    int uid = users->front();
    std::string path = PermissionsPath(r);
    // Grafana's POST replaces the whole list and has no revision: merges in
    // this process queue per item, and each write is read back.
    absl::MutexLock lock(locks_.For(t->base + "\n" + path));
    for (int attempt = 0; attempt < kMergeAttempts; ++attempt) {
      auto items = Permissions(*t, r);
      if (absl::IsNotFound(items.status())) {
        if (!grant) return absl::OkStatus();
        return absl::FailedPreconditionError(
            absl::StrCat("grafana ", r.type(), " ", r.urn(), " no longer exists"));
      }
      if (!items.ok()) return items.status();
      json merged = json::array();
      int current = 0;
      for (const auto& item : *items) {
        if (Inherited(item)) continue;
        int p = static_cast<int>(rest::Int(item, "permission"));
        if (rest::Int(item, "userId") == uid) {
          current = p;
        } else if (rest::Int(item, "userId") > 0) {
          merged.push_back({{"userId", rest::Int(item, "userId")}, {"permission", p}});
        } else if (rest::Int(item, "teamId") > 0) {
          merged.push_back({{"teamId", rest::Int(item, "teamId")}, {"permission", p}});
        } else if (!rest::Str(item, "role").empty()) {
          merged.push_back({{"role", rest::Str(item, "role")}, {"permission", p}});
        }
      }
      int wanted = grant ? std::max(current, level) : (current == level ? 0 : current);
      if (wanted == current) return absl::OkStatus();  // already so
      if (wanted > 0) merged.push_back({{"userId", uid}, {"permission", wanted}});
      auto w = Call(*t, "POST", path, json{{"items", merged}});
      if (!w.ok()) return w.status();
      if (w->status == 404 && !grant) return absl::OkStatus();
      if (!w->ok()) return rest::VendorError("grafana POST " + r.type() + " permissions", *w);
      // Read back: another writer's POST in between would have dropped ours.
      auto check = Permissions(*t, r);
      if (!check.ok()) return check.status();
      int now = 0;
      for (const auto& item : *check) {
        if (!Inherited(item) && rest::Int(item, "userId") == uid) {
          now = static_cast<int>(rest::Int(item, "permission"));
        }
      }
      if (grant ? now >= level : now != level) return absl::OkStatus();
    }
    return absl::AbortedError(absl::StrCat("grafana ", r.type(), " ", r.urn(),
                                           ": its permissions kept changing under another writer; "
                                           "try again"));
  }

  HttpClient* http_;
  rest::CallLimits limits_;
  rest::KeyedLocks locks_;
};

}  // namespace

std::unique_ptr<ProviderClient> NewGrafanaProvider(HttpClient* http, rest::CallLimits limits) {
  return std::make_unique<GrafanaProvider>(http, limits);
}

}  // namespace sluice::access
