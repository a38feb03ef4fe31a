#include "server/access/providers/grafana/testing/fake_grafana.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sluice::access::testing {

using nlohmann::json;

namespace {

FakeResponse Error(int status, const std::string& message) {
  return {status, json{{"message", message}}};
}

int ToInt(const std::string& s, int fallback) {
  int v = 0;
  return absl::SimpleAtoi(s, &v) ? v : fallback;
}

const char* LevelName(int p) { return p == 1 ? "View" : p == 2 ? "Edit" : p == 4 ? "Admin" : "?"; }

}  // namespace

std::unique_ptr<FakeGrafana> FakeGrafana::Start(std::string login, std::string password,
                                                std::string token) {
  std::unique_ptr<FakeGrafana> f(new FakeGrafana());
  f->login_ = std::move(login);
  f->password_ = std::move(password);
  f->token_ = std::move(token);
  {
    absl::MutexLock lock(&f->mu_);
    f->users_[1] = {{"userId", 1},     {"login", f->login_}, {"email", f->login_ + "@localhost"},
                    {"role", "Admin"}, {"orgId", 1},         {"name", "admin"}};
  }
  f->server_ = FakeRestServer::Start([p = f.get()](const FakeRequest& r) { return p->Handle(r); });
  if (f->server_ == nullptr) return nullptr;
  return f;
}

int FakeGrafana::AddUser(const std::string& email, const std::string& login) {
  absl::MutexLock lock(&mu_);
  int id = ++next_id_;
  users_[id] = {{"userId", id},   {"login", login.empty() ? email : login},
                {"email", email}, {"role", "Viewer"},
                {"orgId", 1},     {"name", email.substr(0, email.find('@'))}};
  return id;
}

std::string FakeGrafana::AddFolder(const std::string& title, const std::string& parent_uid) {
  absl::MutexLock lock(&mu_);
  int id = ++next_id_;
  std::string uid = absl::StrCat("f", id);
  Item f;
  f.meta = {{"id", id},
            {"uid", uid},
            {"title", title},
            {"type", "dash-folder"},
            {"url", "/dashboards/f/" + uid},
            {"tags", json::array()}};
  if (!parent_uid.empty()) {
    f.meta["folderUid"] = parent_uid;
    f.meta["folderTitle"] = items_[parent_uid].meta["title"];
  }
  f.items = json::array(
      {{{"role", "Viewer"}, {"permission", 1}}, {{"role", "Editor"}, {"permission", 2}}});
  items_[uid] = f;
  return uid;
}

int FakeGrafana::AddDashboard(const std::string& title, const std::string& folder_uid) {
  absl::MutexLock lock(&mu_);
  int id = ++next_id_;
  std::string uid = absl::StrCat("d", id);
  Item d;
  d.meta = {{"id", id},          {"uid", uid},         {"title", title},
            {"type", "dash-db"}, {"url", "/d/" + uid}, {"tags", json::array({"team-a"})}};
  if (!folder_uid.empty()) {
    d.meta["folderId"] = items_[folder_uid].meta["id"];
    d.meta["folderUid"] = folder_uid;
    d.meta["folderTitle"] = items_[folder_uid].meta["title"];
  } else {
    d.items = json::array(
        {{{"role", "Viewer"}, {"permission", 1}}, {{"role", "Editor"}, {"permission", 2}}});
  }
  items_[uid] = d;
  return id;
}

std::string FakeGrafana::DashboardUid(int id) { return absl::StrCat("d", id); }

int FakeGrafana::Level(const std::string& uid, const std::string& email) {
  absl::MutexLock lock(&mu_);
  for (const auto& item : items_[uid].items) {
    int user = item.value("userId", 0);
    if (user > 0 && users_[user]["email"] == email) return item["permission"];
  }
  return 0;
}

json FakeGrafana::Items(const std::string& uid) {
  absl::MutexLock lock(&mu_);
  return items_[uid].items;
}

void FakeGrafana::SetItems(const std::string& uid, json items) {
  absl::MutexLock lock(&mu_);
  items_[uid].items = std::move(items);
}

FakeResponse FakeGrafana::Handle(const FakeRequest& req) {
  std::string auth = req.Header("authorization");
  bool ok =
      auth == "Bearer " + token_ || auth == "Basic " + absl::Base64Escape(login_ + ":" + password_);
  if (!ok) return Error(401, "Unauthorized");
  std::string org = req.Header("x-grafana-org-id");
  if (!org.empty() && org != "1") return Error(401, "User is not a member of the organization");
  absl::MutexLock lock(&mu_);
  std::vector<std::string> p = absl::StrSplit(req.path, '/', absl::SkipEmpty());
  if (req.method == "GET" && req.path == "/api/org") {
    return {200, json{{"id", 1}, {"name", "Main Org."}}};
  }
  if (req.method == "GET" && req.path == "/api/search") {
    std::string type = req.Query("type");
    int limit = std::min(ToInt(req.Query("limit"), 1000), 5000);
    int page = std::max(ToInt(req.Query("page"), 1), 1);
    std::vector<json> hits;
    for (const auto& [uid, item] : items_) {
      if (type.empty() || item.meta["type"] == type) hits.push_back(item.meta);
    }
    std::sort(hits.begin(), hits.end(),
              [](const json& a, const json& b) { return a["title"] < b["title"]; });
    json out = json::array();
    for (int i = (page - 1) * limit; i < static_cast<int>(hits.size()) && i < page * limit; ++i) {
      out.push_back(hits[i]);
    }
    return {200, out};
  }
  if (req.method == "GET" && req.path == "/api/org/users/search") {
    std::string q = absl::AsciiStrToLower(req.Query("query"));
    int per = std::max(ToInt(req.Query("perpage"), 1000), 1);
    int page = std::max(ToInt(req.Query("page"), 1), 1);
    std::vector<json> matched;
    for (const auto& [id, u] : users_) {
      std::string hay = absl::AsciiStrToLower(
          absl::StrCat(u["login"].get<std::string>(), " ", u["email"].get<std::string>()));
      if (q.empty() || absl::StrContains(hay, q)) matched.push_back(u);
    }
    json out = json::array();
    for (int i = (page - 1) * per; i < static_cast<int>(matched.size()) && i < page * per; ++i) {
      out.push_back(matched[i]);
    }
    return {
        200,
        json{{"totalCount", matched.size()}, {"orgUsers", out}, {"page", page}, {"perPage", per}}};
  }
  // /api/dashboards/uid/:uid/permissions and /api/folders/:uid/permissions
  std::string uid;
  bool folder = false;
  if (p.size() == 5 && p[1] == "dashboards" && p[2] == "uid" && p[4] == "permissions") {
    uid = p[3];
  } else if (p.size() == 5 && p[1] == "dashboards" && p[2] == "id" && p[4] == "permissions") {
    uid = "d" + p[3];
  } else if (p.size() == 4 && p[1] == "folders" && p[3] == "permissions") {
    uid = p[2];
    folder = true;
  }
  if (!uid.empty()) {
    auto it = items_.find(uid);
    if (it == items_.end() || (it->second.meta["type"] == "dash-folder") != folder) {
      return Error(404, folder ? "Folder not found" : "Dashboard not found");
    }
    if (req.method == "GET") return PermissionList(uid);
    if (req.method == "POST") return SetPermissions(uid, req);
  }
  return Error(404, "Not found");
}

FakeResponse FakeGrafana::PermissionList(const std::string& uid) {
  const Item& item = items_[uid];
  json out = json::array();
  auto emit = [&](const json& i, bool inherited, const Item& owner) {
    int user = i.value("userId", 0);
    int p = i["permission"];
    out.push_back({{"dashboardId", owner.meta["id"]},
                   {"uid", owner.meta["uid"]},
                   {"title", owner.meta["title"]},
                   {"userId", user},
                   {"userLogin", users_.count(user) ? users_[user]["login"] : json("")},
                   {"userEmail", users_.count(user) ? users_[user]["email"] : json("")},
                   {"teamId", i.value("teamId", 0)},
                   {"team", ""},
                   {"role", i.value("role", "")},
                   {"permission", p},
                   {"permissionName", LevelName(p)},
                   {"isFolder", owner.meta["type"] == "dash-folder"},
                   {"inherited", inherited}});
  };
  std::string folder = item.meta.value("folderUid", "");
  if (item.meta["type"] == "dash-db" && !folder.empty()) {
    for (const auto& i : items_[folder].items) emit(i, true, items_[folder]);
  }
  for (const auto& i : item.items) emit(i, false, item);
  return {200, out};
}

FakeResponse FakeGrafana::SetPermissions(const std::string& uid, const FakeRequest& req) {
  json b = req.Json();
  if (!b.is_object() || !b["items"].is_array()) return Error(400, "bad request data");
  std::set<std::string> seen;
  json stored = json::array();
  for (const auto& i : b["items"]) {
    int p = i.value("permission", 0);
    if (p != 1 && p != 2 && p != 4) return Error(400, "Invalid permission");
    int user = i.value("userId", 0), team = i.value("teamId", 0);
    std::string role = i.value("role", "");
    if ((user > 0) + (team > 0) + !role.empty() != 1) {
      return Error(400, "Permission must have exactly one of userId, teamId, role");
    }
    if (user > 0 && !users_.count(user)) return Error(400, "User not found");
    std::string key = user ? absl::StrCat("u", user) : team ? absl::StrCat("t", team) : role;
    if (!seen.insert(key).second) return Error(400, "Permission duplicate");
    json s = {{"permission", p}};
    if (user) s["userId"] = user;
    if (team) s["teamId"] = team;
    if (!role.empty()) s["role"] = role;
    stored.push_back(s);
  }
  items_[uid].items = stored;
  return {200, json{{"message", "Dashboard permissions updated"}}};
}

}  // namespace sluice::access::testing
