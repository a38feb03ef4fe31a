#include "server/access/providers/tableau/testing/fake_tableau.h"

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sluice::access::testing {

using nlohmann::json;

namespace {

FakeResponse Error(int status, const std::string& code, const std::string& summary) {
  return {status, json{{"error", {{"code", code}, {"summary", summary}, {"detail", summary}}}}};
}

const std::map<std::string, std::string>& Singular() {
  static const auto* m = new std::map<std::string, std::string>{{"workbooks", "workbook"},
                                                                {"views", "view"},
                                                                {"datasources", "datasource"},
                                                                {"flows", "flow"},
                                                                {"metrics", "metric"}};
  return *m;
}

}  // namespace

std::unique_ptr<FakeTableau> FakeTableau::Start(std::string admin, std::string password,
                                                std::string content_url) {
  std::unique_ptr<FakeTableau> f(new FakeTableau());
  f->admin_ = admin;
  f->password_ = std::move(password);
  f->content_url_ = std::move(content_url);
  f->AddUser(admin, "SiteAdministratorCreator");
  f->server_ = FakeRestServer::Start([p = f.get()](const FakeRequest& r) { return p->Handle(r); });
  if (f->server_ == nullptr) return nullptr;
  return f;
}

std::string FakeTableau::AddUser(const std::string& name, const std::string& site_role) {
  absl::MutexLock lock(&mu_);
  std::string id = absl::StrCat("user-", ++next_id_);
  users_[id] = {{"id", id},      {"name", name},     {"siteRole", site_role},
                {"email", name}, {"fullName", name}, {"authSetting", "ServerDefault"}};
  return id;
}

std::string FakeTableau::AddProject(const std::string& name, const std::string& parent_id) {
  absl::MutexLock lock(&mu_);
  std::string id = absl::StrCat("project-", ++next_id_);
  projects_[id] = {{"id", id}, {"name", name}, {"contentPermissions", "ManagedByOwner"}};
  if (!parent_id.empty()) projects_[id]["parentProjectId"] = parent_id;
  return id;
}

std::string FakeTableau::AddItem(const std::string& kind, const std::string& name,
                                 const std::string& project_id, const std::string& owner_id,
                                 json extra) {
  absl::MutexLock lock(&mu_);
  std::string id = absl::StrCat(Singular().at(kind), "-", ++next_id_);
  json item = {{"id", id},
               {"name", name},
               {"contentUrl", name},
               {"webpageUrl", "https://tableau.example/#/" + kind + "/" + id},
               {"project", {{"id", project_id}, {"name", projects_[project_id]["name"]}}},
               {"owner", {{"id", owner_id}}},
               {"tags", {{"tag", json::array({{{"label", "sales"}}})}}}};
  if (kind == "workbooks") item["showTabs"] = "false";
  item.update(extra);
  items_[kind][id] = item;
  return id;
}

void FakeTableau::ExpireSessions() {
  absl::MutexLock lock(&mu_);
  tokens_.clear();
}

int FakeTableau::sign_ins() {
  absl::MutexLock lock(&mu_);
  return sign_ins_;
}

std::set<std::string> FakeTableau::Capabilities(const std::string& kind, const std::string& id,
                                                const std::string& name) {
  absl::MutexLock lock(&mu_);
  std::set<std::string> out;
  for (const auto& [uid, caps] : caps_[{kind, id}]) {
    if (users_[uid]["name"] != name) continue;
    for (const auto& [c, mode] : caps) out.insert(c + ":" + mode);
  }
  return out;
}

std::string FakeTableau::SiteRole(const std::string& name) {
  absl::MutexLock lock(&mu_);
  for (const auto& [id, u] : users_) {
    if (u["name"] == name) return u["siteRole"];
  }
  return "";
}

void FakeTableau::SetSiteRole(const std::string& name, const std::string& site_role) {
  absl::MutexLock lock(&mu_);
  for (auto& [id, u] : users_) {
    if (u["name"] == name) u["siteRole"] = site_role;
  }
}

FakeResponse FakeTableau::Page(const FakeRequest& req, const std::string& plural,
                               const std::string& singular, const std::vector<json>& all) {
  int size = 100, number = 1;
  if (!req.Query("pageSize").empty()) (void)absl::SimpleAtoi(req.Query("pageSize"), &size);
  if (!req.Query("pageNumber").empty()) (void)absl::SimpleAtoi(req.Query("pageNumber"), &number);
  if (size < 1 || size > 1000 || number < 1) return Error(400, "400006", "Invalid page size");
  json page = json::array();
  for (int i = (number - 1) * size; i < static_cast<int>(all.size()) && i < number * size; ++i) {
    page.push_back(all[i]);
  }
  return {200, json{{"pagination",
                     {{"pageNumber", std::to_string(number)},
                      {"pageSize", std::to_string(size)},
                      {"totalAvailable", std::to_string(all.size())}}},
                    {plural, {{singular, page}}}}};
}

FakeResponse FakeTableau::Handle(const FakeRequest& req) {
  std::vector<std::string> p = absl::StrSplit(req.path, '/', absl::SkipEmpty());
  // /api/<version>/...
  if (p.size() < 3 || p[0] != "api") return Error(404, "404000", "Resource Not Found");
  absl::MutexLock lock(&mu_);
  if (req.method == "POST" && p.size() == 4 && p[2] == "auth" && p[3] == "signin") {
    json c = req.Json().is_object() ? req.Json().value("credentials", json()) : json();
    if (!c.is_object() || c.value("name", "") != admin_ || c.value("password", "") != password_) {
      return Error(401, "401001", "Signin Error");
    }
    if (!c["site"].is_object() || c["site"].value("contentUrl", "-") != content_url_) {
      return Error(401, "401001", "Signin Error");
    }
    std::string token = absl::StrCat("token-", ++next_id_);
    tokens_.insert(token);
    ++sign_ins_;
    std::string admin_id;
    for (const auto& [id, u] : users_) {
      if (u["name"] == admin_) admin_id = id;
    }
    return {200, json{{"credentials",
                       {{"site", {{"id", site_id()}, {"contentUrl", content_url_}}},
                        {"user", {{"id", admin_id}}},
                        {"token", token}}}}};
  }
  if (!tokens_.count(req.Header("x-tableau-auth"))) {
    return Error(401, "401002", "Unauthorized Access");
  }
  if (p.size() < 5 || p[2] != "sites") return Error(404, "404000", "Resource Not Found");
  if (p[3] != site_id()) return Error(404, "404000", "Site not found");
  const std::string& coll = p[4];
  if (p.size() == 5 && req.method == "GET") {
    std::vector<json> all;
    if (coll == "users") {
      std::string filter = req.Query("filter");
      for (const auto& [id, u] : users_) {
        if (filter.empty() || filter == "name:eq:" + u["name"].get<std::string>()) all.push_back(u);
      }
      return Page(req, "users", "user", all);
    }
    if (coll == "projects") {
      for (const auto& [id, pr] : projects_) all.push_back(pr);
      return Page(req, "projects", "project", all);
    }
    if (Singular().count(coll)) {
      for (const auto& [id, item] : items_[coll]) all.push_back(item);
      return Page(req, coll, Singular().at(coll), all);
    }
  }
  if (coll == "users" && p.size() == 6 && req.method == "PUT") {
    if (!users_.count(p[5])) return Error(404, "404002", "User not found");
    json b = req.Json();
    std::string role =
        b.is_object() && b["user"].is_object() ? b["user"].value("siteRole", "") : "";
    if (role.empty()) return Error(400, "400000", "Bad Request");
    users_[p[5]]["siteRole"] = role;
    return {200, json{{"user", users_[p[5]]}}};
  }
  if (Singular().count(coll) && p.size() >= 7 && p[6] == "permissions") {
    if (!items_[coll].count(p[5])) return Error(404, "404004", "Resource not found");
    return Permissions(req, coll, p[5], std::vector<std::string>(p.begin() + 7, p.end()));
  }
  return Error(404, "404000", "Resource Not Found");
}

FakeResponse FakeTableau::Permissions(const FakeRequest& req, const std::string& kind,
                                      const std::string& id, const std::vector<std::string>& rest) {
  auto& caps = caps_[{kind, id}];
  auto listing = [&] {
    json grantees = json::array();
    for (const auto& [uid, cs] : caps) {
      if (cs.empty()) continue;
      json list = json::array();
      for (const auto& [name, mode] : cs) list.push_back({{"name", name}, {"mode", mode}});
      grantees.push_back({{"user", {{"id", uid}}}, {"capabilities", {{"capability", list}}}});
    }
    return json{
        {"permissions", {{Singular().at(kind), {{"id", id}}}, {"granteeCapabilities", grantees}}}};
  };
  if (rest.empty() && req.method == "GET") return {200, listing()};
  if (rest.empty() && req.method == "PUT") {
    json b = req.Json();
    if (!b.is_object() || !b["permissions"].is_object()) {
      return Error(400, "400000", "Bad Request");
    }
    for (const auto& g : b["permissions"].value("granteeCapabilities", json::array())) {
      std::string uid = g.value("user", json::object()).value("id", "");
      if (!users_.count(uid)) return Error(404, "404002", "User not found");
      for (const auto& c :
           g.value("capabilities", json::object()).value("capability", json::array())) {
        std::string name = c.value("name", ""), mode = c.value("mode", "");
        if (mode != "Allow" && mode != "Deny") return Error(400, "400009", "Invalid capability");
        // "If a specified permission has already been granted or denied for a
        // given user or group, the system ignores it."
        caps[uid].emplace(name, mode);
      }
    }
    return {200, listing()};
  }
  // DELETE .../permissions/users/<user>/<name>/<mode>
  if (rest.size() == 4 && rest[0] == "users" && req.method == "DELETE") {
    auto u = caps.find(rest[1]);
    if (u == caps.end()) return Error(404, "404003", "Permission not found");
    auto c = u->second.find(rest[2]);
    if (c == u->second.end() || c->second != rest[3]) {
      return Error(404, "404003", "Permission not found");
    }
    u->second.erase(c);
    return {204, nullptr};
  }
  return Error(405, "405000", "Method not allowed");
}

}  // namespace sluice::access::testing
