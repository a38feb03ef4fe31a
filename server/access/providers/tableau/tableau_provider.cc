#include "server/access/providers/tableau/tableau_provider.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/access/core/json.h"
#include "server/access/providers/tableau/tableau_client.h"

namespace sluice::access {
namespace {

using nlohmann::json;
using tableau::Client;

// A resource type's REST collection and the capabilities Guardian allows
// on it (config.go PermissionNames, plus the metric ones its docs list).
struct Kind {
  const char* plural;
  const char* singular;
  std::set<std::string> capabilities;
};

const std::map<std::string, Kind>& Kinds() {
  static const auto* m = new std::map<std::string, Kind>{
      {"workbook",
       {"workbooks",
        "workbook",
        {"AddComment", "ChangeHierarchy", "ChangePermissions", "Delete", "ExportData",
         "ExportImage", "ExportXml", "Filter", "Read", "ShareView", "ViewComments",
         "ViewUnderlyingData", "WebAuthoring", "Write"}}},
      {"view",
       {"views",
        "view",
        {"AddComment", "ChangePermissions", "Delete", "ExportData", "ExportImage", "ExportXml",
         "Filter", "Read", "ShareView", "ViewComments", "ViewUnderlyingData", "WebAuthoring",
         "Write"}}},
      {"metric",
       {"metrics", "metric", {"ChangeHierarchy", "ChangePermissions", "Delete", "Read", "Write"}}},
      {"datasource",
       {"datasources",
        "datasource",
        {"ChangePermissions", "Connect", "Delete", "ExportXml", "Read", "Write"}}},
      {"flow",
       {"flows",
        "flow",
        {"ChangeHierarchy", "ChangePermissions", "Delete", "Execute", "ExportXml", "Read",
         "Write"}}},
  };
  return *m;
}

// Site roles by license level, for "raise, never lower" (Tableau's site
// roles; Guardian's docs list ServerAdministrator and "Read only" too).
int SiteRoleRank(const std::string& role) {
  static const auto* m = new std::map<std::string, int>{{"Unlicensed", 0},
                                                        {"ReadOnly", 1},
                                                        {"Viewer", 2},
                                                        {"Explorer", 3},
                                                        {"ExplorerCanPublish", 4},
                                                        {"Creator", 5},
                                                        {"SiteAdministratorExplorer", 6},
                                                        {"SiteAdministratorCreator", 7},
                                                        {"ServerAdministrator", 8}};
  auto it = m->find(role);
  return it == m->end() ? -1 : it->second;
}

// Grant.provider_state key of a grant with a site role: the user's site
// role before Sluice's grants raised it (review F-M3).
constexpr char kRoleBefore[] = "site_role_before";

// The highest-ranked site role among appeal permissions ("Viewer@site_role"),
// "" when there is none.
std::string HighestSiteRole(const std::vector<std::string>& permissions) {
  std::string best;
  for (const auto& p : permissions) {
    if (!absl::EndsWith(p, "@site_role")) continue;
    std::string role = p.substr(0, p.size() - 10);
    if (SiteRoleRank(role) > SiteRoleRank(best)) best = role;
  }
  return best;
}

// kRoleBefore of a grant's provider state; "" when absent or unreadable.
std::string RoleBefore(const std::string& state) {
  if (state.empty()) return "";
  json doc = json::parse(state, nullptr, false);
  if (!doc.is_object() || !doc.contains(kRoleBefore) || !doc[kRoleBefore].is_string()) return "";
  std::string role = doc[kRoleBefore].get<std::string>();
  return SiteRoleRank(role) < 0 ? "" : role;
}

// One permission of a role: a capability "Name:Mode" or a site role.
struct Permission {
  std::string name;
  std::string mode;  // Allow or Deny; "" for a site role
  bool site_role = false;
};

// Parses an appeal's permission string ("Read:Allow", "Viewer@site_role").
absl::StatusOr<Permission> ParsePermission(const std::string& type, const std::string& s) {
  if (absl::EndsWith(s, "@site_role")) {
    Permission p{s.substr(0, s.size() - 10), "", true};
    if (SiteRoleRank(p.name) < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", p.name, "\" is not a Tableau site role"));
    }
    return p;
  }
  std::vector<std::string> parts = absl::StrSplit(s, ':');
  auto kind = Kinds().find(type);
  if (kind == Kinds().end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tableau provider: unsupported resource type \"", type, "\""));
  }
  if (parts.size() != 2 || (parts[1] != "Allow" && parts[1] != "Deny") ||
      !kind->second.capabilities.count(parts[0])) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", s, "\" is not <capability>:<Allow|Deny> with a ", type, " capability (",
                     absl::StrJoin(kind->second.capabilities, ", "), ")"));
  }
  return Permission{parts[0], parts[1], false};
}

std::vector<std::string> Tags(const json& item) {
  std::vector<std::string> out;
  for (const auto& t : rest::Array(rest::Field(item, "tags"), "tag")) {
    out.push_back(rest::Str(t, "label"));
  }
  return out;
}

class TableauProvider : public ProviderClient {
 public:
  TableauProvider(HttpClient* http, rest::CallLimits limits) : http_(http), limits_(limits) {}

  std::string Type() const override { return "tableau"; }
  std::vector<std::string> GetAccountTypes() const override { return {"user"}; }

  absl::Status ValidateConfig(const v1beta1::ProviderConfig& config) const override {
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    for (int i = 0; i < config.resources_size(); ++i) {
      const auto& rc = config.resources(i);
      if (!Kinds().count(rc.type())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "resources[", i, "].type: \"", rc.type(),
            "\" is not a tableau resource type (workbook, view, metric, datasource, flow)"));
      }
      for (int j = 0; j < rc.roles_size(); ++j) {
        std::string f = absl::StrCat("resources[", i, "].roles[", j, "].permissions");
        if (rc.roles(j).permissions().empty()) return absl::InvalidArgumentError(f + ": required");
        for (int k = 0; k < rc.roles(j).permissions_size(); ++k) {
          const auto& v = rc.roles(j).permissions(k);
          // Guardian's shape: {"name": ..., "type": "site_role"?}.
          const auto& fields = v.struct_value().fields();
          auto type = fields.find("type");
          bool shaped = v.has_struct_value() && fields.count("name") &&
                        (type == fields.end() || type->second.string_value() == "site_role" ||
                         type->second.string_value().empty());
          if (!shaped && !v.has_string_value()) {
            return absl::InvalidArgumentError(
                absl::StrCat(f, "[", k,
                             "]: want {\"name\": \"<Capability>:<Allow|Deny>\"} or {\"name\": "
                             "\"<SiteRole>\", \"type\": \"site_role\"}"));
          }
          auto p = ParsePermission(rc.type(), PermissionString(v));
          if (!p.ok())
            return absl::InvalidArgumentError(absl::StrCat(f, "[", k, "]: ", p.status().message()));
        }
      }
    }
    return client->SignIn();
  }

  absl::StatusOr<std::vector<v1beta1::Resource>> GetResources(
      const v1beta1::ProviderConfig& config) override {
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    auto projects = client->ListAll("projects", "project");
    if (!projects.ok()) return projects.status();
    std::map<std::string, std::pair<std::string, std::string>> tree;  // id → (name, parent)
    for (const auto& p : *projects) {
      tree[rest::Str(p, "id")] = {rest::Str(p, "name"), rest::Str(p, "parentProjectId")};
    }
    auto path_of = [&](std::string id) {
      std::vector<std::string> parts;
      for (int depth = 0; !id.empty() && tree.count(id) && depth < 64; ++depth) {
        parts.insert(parts.begin(), tree[id].first);
        id = tree[id].second;
      }
      return absl::StrJoin(parts, "/");
    };
    auto users = client->ListAll("users", "user");
    if (!users.ok()) return users.status();
    std::map<std::string, std::string> user_names;
    for (const auto& u : *users) user_names[rest::Str(u, "id")] = rest::Str(u, "name");

    std::vector<v1beta1::Resource> out;
    std::set<std::string> done;
    for (const auto& rc : config.resources()) {
      auto kind = Kinds().find(rc.type());
      if (kind == Kinds().end() || !done.insert(rc.type()).second) continue;
      auto items = client->ListAll(kind->second.plural, kind->second.singular);
      if (!items.ok()) return items.status();
      for (const auto& i : *items) {
        v1beta1::Resource r;
        r.set_type(rc.type());
        r.set_urn(rest::Str(i, "id"));
        r.set_name(rest::Str(i, "name"));
        const json& project = rest::Field(i, "project");
        std::string owner = rest::Str(rest::Field(i, "owner"), "id");
        json d = {{"project_id", rest::Str(project, "id")},
                  {"project_name", rest::Str(project, "name")},
                  {"project_path", path_of(rest::Str(project, "id"))},
                  {"owner_id", owner},
                  {"owner_name", user_names.count(owner) ? user_names[owner] : ""},
                  {"content_url", rest::Str(i, "contentUrl")},
                  {"webpage_url", rest::Str(i, "webpageUrl")},
                  {"tags", Tags(i)}};
        if (rc.type() == "workbook") {
          d["show_tabs"] = rest::Str(i, "showTabs");
          d["size"] = rest::Str(i, "size");
          d["default_view_id"] = rest::Str(i, "defaultViewId");
        } else if (rc.type() == "view") {
          d["workbook_id"] = rest::Str(rest::Field(i, "workbook"), "id");
          d["view_url_name"] = rest::Str(i, "viewUrlName");
        } else if (rc.type() == "metric") {
          d["underlying_view_id"] = rest::Str(rest::Field(i, "underlyingView"), "id");
          d["description"] = rest::Str(i, "description");
        } else if (rc.type() == "datasource") {
          d["type"] = rest::Str(i, "type");
        } else if (rc.type() == "flow") {
          d["file_type"] = rest::Str(i, "fileType");
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
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    auto user = client->FindUser(std::string(account_id));
    if (!user.ok()) return user.status();
    if (!user->has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "account_id: \"", account_id, "\" is not a user of the Tableau site of provider ",
          config.urn(), " (accounts are Tableau user names)"));
    }
    return absl::OkStatus();
  }

  absl::Status GrantAccess(const v1beta1::ProviderConfig& config,
                           const AccessRequest& req) override {
    return GrantAccessWithState(config, req).status();
  }

  bool UsesOtherGrants() const override { return true; }

  // The state of a grant with a site role is {"site_role_before": R}: R is
  // the site role the user had before Sluice raised it, carried over from
  // another active grant that recorded one (the user's current role may
  // already be that grant's raise), else the current role.
  absl::StatusOr<std::string> GrantAccessWithState(const v1beta1::ProviderConfig& config,
                                                   const AccessRequest& req) override {
    auto perms = Parse(req);
    if (!perms.ok()) return perms.status();
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    auto user = client->FindUser(req.account_id);
    if (!user.ok()) return user.status();
    if (!user->has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("tableau provider ", config.urn(), ": account \"", req.account_id,
                       "\" is not a user of the Tableau site (add the user to the site first)"));
    }
    const auto& u = **user;
    // Site role first (Guardian: UpdateSiteRole), only ever raised here;
    // RevokeAccess lowers it back to the recorded one.
    std::string state;
    std::string want = HighestSiteRole(req.permissions);
    if (!want.empty()) {
      absl::MutexLock lock(locks_.For(client->target().base + "\nuser\n" + u.id));
      auto fresh = client->FindUser(req.account_id);
      if (!fresh.ok()) return fresh.status();
      std::string current = fresh->has_value() ? (*fresh)->site_role : u.site_role;
      std::string before;
      for (const auto& other : req.other_grants) {
        if (before.empty() && !HighestSiteRole(other.permissions).empty()) {
          before = RoleBefore(other.provider_state);
        }
      }
      if (before.empty()) before = current;
      state = json{{kRoleBefore, before}}.dump();
      if (SiteRoleRank(current) < SiteRoleRank(want)) {
        if (auto st = client->SetSiteRole(u.id, want); !st.ok()) return st;
      }
    }
    const Kind& kind = Kinds().at(req.resource.type());
    absl::MutexLock lock(locks_.For(
        absl::StrCat(client->target().base, "\n", kind.plural, "\n", req.resource.urn())));
    auto grantees = client->Grantees(kind.plural, req.resource.urn());
    if (absl::IsNotFound(grantees.status())) {
      return absl::FailedPreconditionError(absl::StrCat("tableau ", req.resource.type(), " ",
                                                        req.resource.urn(), " no longer exists"));
    }
    if (!grantees.ok()) return grantees.status();
    std::map<std::string, std::string> held;  // capability → mode, the user's own
    for (const auto& g : *grantees) {
      if (rest::Str(rest::Field(g, "user"), "id") != u.id) continue;
      for (const auto& c : rest::Array(rest::Field(g, "capabilities"), "capability")) {
        held[rest::Str(c, "name")] = rest::Str(c, "mode");
      }
    }
    std::vector<std::pair<std::string, std::string>> add;
    for (const auto& p : *perms) {
      if (p.site_role) continue;
      auto h = held.find(p.name);
      if (h != held.end() && h->second == p.mode) continue;
      if (h != held.end()) {
        // Tableau ignores a capability already set in the other mode.
        auto st =
            client->DeleteCapability(kind.plural, req.resource.urn(), u.id, p.name, h->second);
        if (!st.ok()) return st;
      }
      add.emplace_back(p.name, p.mode);
    }
    if (!add.empty()) {
      auto st = client->AddCapabilities(kind.plural, req.resource.urn(), u.id, add);
      if (!st.ok()) return st;
    }
    return state;
  }

  absl::Status RevokeAccess(const v1beta1::ProviderConfig& config,
                            const AccessRequest& req) override {
    auto perms = Parse(req);
    if (!perms.ok()) return perms.status();
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    auto user = client->FindUser(req.account_id);
    if (!user.ok()) return user.status();
    if (!user->has_value()) return absl::OkStatus();  // no such user: nothing to revoke
    const Kind& kind = Kinds().at(req.resource.type());
    for (const auto& p : *perms) {
      if (p.site_role) continue;  // below, once the capabilities are gone
      auto st =
          client->DeleteCapability(kind.plural, req.resource.urn(), (*user)->id, p.name, p.mode);
      if (!st.ok()) return st;
    }
    return LowerSiteRole(*client, req, (*user)->id);
  }

  absl::StatusOr<std::vector<ProviderAccess>> ListAccess(
      const v1beta1::ProviderConfig& config,
      const std::vector<v1beta1::Resource>& resources) override {
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    auto users = client->ListAll("users", "user");
    if (!users.ok()) return users.status();
    std::map<std::string, std::string> names;
    for (const auto& u : *users) names[rest::Str(u, "id")] = rest::Str(u, "name");
    std::vector<ProviderAccess> out;
    for (const auto& r : resources) {
      auto kind = Kinds().find(r.type());
      if (kind == Kinds().end()) continue;
      auto grantees = client->Grantees(kind->second.plural, r.urn());
      if (absl::IsNotFound(grantees.status())) continue;
      if (!grantees.ok()) return grantees.status();
      for (const auto& g : *grantees) {
        std::string id = rest::Str(rest::Field(g, "user"), "id");
        if (id.empty() || !names.count(id)) continue;  // groups are not accounts
        ProviderAccess a{r.type(), r.urn(), names[id], "user", {}};
        for (const auto& c : rest::Array(rest::Field(g, "capabilities"), "capability")) {
          a.permissions.push_back(rest::Str(c, "name") + ":" + rest::Str(c, "mode"));
        }
        if (!a.permissions.empty()) out.push_back(std::move(a));
      }
    }
    return out;
  }

 private:
  absl::StatusOr<Client> ClientFor(const v1beta1::ProviderConfig& config) const {
    auto target = tableau::ParseTarget(config.credentials());
    if (!target.ok()) return target.status();
    return Client(http_, &sessions_, limits_, *target);
  }

  // Review F-M3: when the revoked grant raised the site role, lowers it to
  // the higher of the role recorded before the raise and the highest one
  // the account's other active grants need. Only lowers, and only a role
  // no higher than what these grants account for: a role someone raised
  // further by hand stays. A grant without a recorded role (made before
  // Sluice recorded it) leaves the role as it is.
  absl::Status LowerSiteRole(Client& client, const AccessRequest& req,
                             const std::string& user_id) {
    std::string mine = HighestSiteRole(req.permissions);
    std::string target = RoleBefore(req.provider_state);
    if (mine.empty() || target.empty()) return absl::OkStatus();
    std::string others;
    for (const auto& other : req.other_grants) {
      std::string r = HighestSiteRole(other.permissions);
      if (SiteRoleRank(r) > SiteRoleRank(others)) others = r;
    }
    if (SiteRoleRank(others) > SiteRoleRank(target)) target = others;
    int ceiling = std::max(SiteRoleRank(mine), SiteRoleRank(others));
    absl::MutexLock lock(locks_.For(client.target().base + "\nuser\n" + user_id));
    auto fresh = client.FindUser(req.account_id);
    if (!fresh.ok()) return fresh.status();
    if (!fresh->has_value()) return absl::OkStatus();
    int current = SiteRoleRank((*fresh)->site_role);
    if (current <= SiteRoleRank(target) || current > ceiling) return absl::OkStatus();
    return client.SetSiteRole(user_id, target);
  }

  static absl::StatusOr<std::vector<Permission>> Parse(const AccessRequest& req) {
    if (!Kinds().count(req.resource.type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tableau provider: unsupported resource type \"", req.resource.type(), "\""));
    }
    if (req.permissions.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("role \"", req.role, "\" has no permissions"));
    }
    std::vector<Permission> out;
    for (const auto& s : req.permissions) {
      auto p = ParsePermission(req.resource.type(), s);
      if (!p.ok()) return p.status();
      out.push_back(*p);
    }
    return out;
  }

  HttpClient* http_;
  rest::CallLimits limits_;
  mutable rest::SessionCache sessions_;
  rest::KeyedLocks locks_;
};

}  // namespace

std::unique_ptr<ProviderClient> NewTableauProvider(HttpClient* http, rest::CallLimits limits) {
  return std::make_unique<TableauProvider>(http, limits);
}

}  // namespace sluice::access
