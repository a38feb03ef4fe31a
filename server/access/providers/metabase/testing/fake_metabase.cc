#include "server/access/providers/metabase/testing/fake_metabase.h"

#include "absl/strings/ascii.h"
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

int ToInt(const std::string& s) {
  int v = 0;
  return absl::SimpleAtoi(s, &v) ? v : -1;
}

}  // namespace

std::unique_ptr<FakeMetabase> FakeMetabase::Start(std::string admin_email,
                                                  std::string admin_password, Shape shape) {
  std::unique_ptr<FakeMetabase> f(new FakeMetabase());
  f->admin_email_ = std::move(admin_email);
  f->admin_password_ = std::move(admin_password);
  f->shape_ = shape;
  {
    absl::MutexLock lock(&f->mu_);
    f->groups_[1] = "All Users";
    f->groups_[2] = "Administrators";
    f->users_[1] = {{"id", 1},
                    {"email", f->admin_email_},
                    {"is_active", true},
                    {"first_name", "Admin"},
                    {"last_name", "User"}};
    f->memberships_[1] = {1, 1, 1};
    f->memberships_[2] = {2, 2, 1};
    f->collections_.push_back({{"id", "root"}, {"name", "Our analytics"}});
  }
  f->server_ = FakeRestServer::Start([p = f.get()](const FakeRequest& r) { return p->Handle(r); });
  if (f->server_ == nullptr) return nullptr;
  return f;
}

int FakeMetabase::AddUser(const std::string& email, bool active) {
  absl::MutexLock lock(&mu_);
  int id = ++next_id_;
  users_[id] = {{"id", id},
                {"email", email},
                {"is_active", active},
                {"first_name", email.substr(0, email.find('@'))},
                {"last_name", "Test"}};
  int m = ++next_id_;
  memberships_[m] = {m, 1, id};  // everyone is in All Users
  return id;
}

int FakeMetabase::AddDatabase(const std::string& name, const std::vector<std::string>& tables,
                              const std::string& schema) {
  absl::MutexLock lock(&mu_);
  int id = ++next_id_;
  json db = {{"id", id},
             {"name", name},
             {"engine", "postgres"},
             {"timezone", "UTC"},
             {"native_permissions", "write"},
             {"tables", json::array()}};
  for (const auto& t : tables) {
    db["tables"].push_back(
        {{"id", ++next_id_}, {"name", t}, {"schema", schema}, {"db_id", id}, {"display_name", t}});
  }
  databases_.push_back(db);
  // Like a new Metabase database: Administrators may do everything; this
  // fake's All Users nothing (a locked-down instance).
  auto entry = [&](json perms) {
    return shape_ == Shape::kCurrent ? json{{"data", perms}, {"download", {{"schemas", "full"}}}}
                                     : perms;
  };
  data_graph_["2"][std::to_string(id)] = entry({{"native", "write"}, {"schemas", "all"}});
  data_graph_["1"][std::to_string(id)] = entry({{"native", "none"}, {"schemas", "none"}});
  return id;
}

int FakeMetabase::TableId(int db_id, const std::string& name) {
  absl::MutexLock lock(&mu_);
  for (const auto& d : databases_) {
    if (d["id"] != db_id) continue;
    for (const auto& t : d["tables"]) {
      if (t["name"] == name) return t["id"];
    }
  }
  return 0;
}

int FakeMetabase::AddCollection(const std::string& name, int parent_id, int personal_owner_id) {
  absl::MutexLock lock(&mu_);
  int id = ++next_id_;
  std::string location = "/";
  if (parent_id != 0) {
    for (const auto& c : collections_) {
      if (c["id"] == parent_id)
        location = c.value("location", "/") + std::to_string(parent_id) + "/";
    }
  }
  json c = {
      {"id", id},
      {"name", name},
      {"slug", absl::AsciiStrToLower(name)},
      {"location", location},
      {"archived", false},
      {"personal_owner_id", personal_owner_id == 0 ? json(nullptr) : json(personal_owner_id)}};
  collections_.push_back(c);
  return id;
}

int FakeMetabase::AddGroup(const std::string& name) {
  absl::MutexLock lock(&mu_);
  int id = ++next_id_;
  groups_[id] = name;
  return id;
}

void FakeMetabase::ExpireSessions() {
  absl::MutexLock lock(&mu_);
  sessions_.clear();
}

int FakeMetabase::sign_ins() {
  absl::MutexLock lock(&mu_);
  return sign_ins_;
}

int FakeMetabase::GroupId(const std::string& name) {
  absl::MutexLock lock(&mu_);
  for (const auto& [id, n] : groups_) {
    if (n == name) return id;
  }
  return 0;
}

std::set<std::string> FakeMetabase::Members(const std::string& group_name) {
  int gid = GroupId(group_name);
  absl::MutexLock lock(&mu_);
  std::set<std::string> out;
  for (const auto& [id, m] : memberships_) {
    if (m.group_id == gid) out.insert(users_[m.user_id]["email"].get<std::string>());
  }
  return out;
}

json FakeMetabase::DataEntry(const std::string& group_name, int db_id) {
  std::string g = std::to_string(GroupId(group_name)), d = std::to_string(db_id);
  absl::MutexLock lock(&mu_);
  if (!data_graph_.contains(g) || !data_graph_[g].contains(d)) return nullptr;
  json e = data_graph_[g][d];
  return e.contains("data") ? e["data"] : e;
}

std::string FakeMetabase::CollectionEntry(const std::string& group_name, int id) {
  std::string g = std::to_string(GroupId(group_name)), c = std::to_string(id);
  absl::MutexLock lock(&mu_);
  if (!coll_graph_.contains(g) || !coll_graph_[g].contains(c)) return "none";
  return coll_graph_[g][c];
}

int FakeMetabase::graph_revision() {
  absl::MutexLock lock(&mu_);
  return data_revision_;
}

FakeResponse FakeMetabase::Handle(const FakeRequest& req) {
  absl::MutexLock lock(&mu_);
  return HandleLocked(req);
}

FakeResponse FakeMetabase::List(json items) {
  if (shape_ == Shape::kLegacy) return {200, items};
  size_t n = items.size();
  return {200, json{{"data", std::move(items)}, {"total", n}}};
}

FakeResponse FakeMetabase::HandleLocked(const FakeRequest& req) {
  std::vector<std::string> p = absl::StrSplit(req.path, '/', absl::SkipEmpty());
  if (req.method == "POST" && req.path == "/api/session") {
    json b = req.Json();
    if (!b.is_object() || !b.contains("username") || !b.contains("password")) {
      return Error(400, "username and password are required");
    }
    if (b["username"] != admin_email_ || b["password"] != admin_password_) {
      return {401, json{{"errors", {{"password", "did not match stored password"}}}}};
    }
    std::string id = absl::StrCat("session-", ++next_id_);
    sessions_.insert(id);
    ++sign_ins_;
    return {200, json{{"id", id}}};
  }
  if (!sessions_.count(req.Header("x-metabase-session"))) return {401, "Unauthenticated"};

  if (req.method == "GET" && req.path == "/api/database") {
    json dbs = databases_;
    if (req.Query("include") != "tables") {
      for (auto& d : dbs) d.erase("tables");
    }
    return List(dbs);
  }
  if (req.method == "GET" && req.path == "/api/collection") return {200, collections_};
  if (req.method == "GET" && req.path == "/api/user") {
    std::string q = absl::AsciiStrToLower(req.Query("query"));
    json matched = json::array();
    for (const auto& [id, u] : users_) {
      if (!u["is_active"].get<bool>()) continue;
      if (q.empty() || absl::StrContains(absl::AsciiStrToLower(u["email"].get<std::string>()), q)) {
        matched.push_back(u);
      }
    }
    if (shape_ == Shape::kLegacy) return {200, matched};
    int limit = req.Query("limit").empty() ? 1000 : ToInt(req.Query("limit"));
    int offset = req.Query("offset").empty() ? 0 : ToInt(req.Query("offset"));
    json page = json::array();
    for (int i = offset; i < static_cast<int>(matched.size()) && i < offset + limit; ++i) {
      page.push_back(matched[i]);
    }
    return {200,
            json{{"data", page}, {"total", matched.size()}, {"limit", limit}, {"offset", offset}}};
  }
  if (p.size() >= 3 && p[0] == "api" && p[1] == "permissions" && p[2] == "group") {
    if (p.size() == 3 && req.method == "GET") {
      json out = json::array();
      for (const auto& [id, name] : groups_) {
        int n = 0;
        for (const auto& [mid, m] : memberships_) n += m.group_id == id;
        out.push_back({{"id", id}, {"name", name}, {"member_count", n}});
      }
      return {200, out};
    }
    if (p.size() == 3 && req.method == "POST") {
      std::string name = req.Json().value("name", "");
      for (const auto& [id, n] : groups_) {
        if (n == name) return Error(400, "A group with that name already exists.");
      }
      int id = ++next_id_;
      groups_[id] = name;
      return {200, json{{"id", id}, {"name", name}}};
    }
    if (p.size() == 4 && req.method == "GET") {
      int gid = ToInt(p[3]);
      if (!groups_.count(gid)) return Error(404, "Not found.");
      json members = json::array();
      for (const auto& [mid, m] : memberships_) {
        if (m.group_id != gid) continue;
        members.push_back({{"user_id", m.user_id},
                           {"membership_id", mid},
                           {"email", users_[m.user_id]["email"]}});
      }
      return {200, json{{"id", gid}, {"name", groups_[gid]}, {"members", members}}};
    }
  }
  if (req.path == "/api/permissions/membership" && req.method == "POST") {
    json b = req.Json();
    int gid = b.value("group_id", 0), uid = b.value("user_id", 0);
    if (!groups_.count(gid) || !users_.count(uid)) return Error(404, "Not found.");
    for (const auto& [mid, m] : memberships_) {
      if (m.group_id == gid && m.user_id == uid) return Error(400, "already a member");
    }
    int id = ++next_id_;
    memberships_[id] = {id, gid, uid};
    return {200, json::array({{{"membership_id", id}, {"group_id", gid}, {"user_id", uid}}})};
  }
  if (p.size() == 4 && p[1] == "permissions" && p[2] == "membership" && req.method == "DELETE") {
    if (memberships_.erase(ToInt(p[3])) == 0) return Error(404, "Not found.");
    return {204, nullptr};
  }
  if (req.path == "/api/permissions/graph" || req.path == "/api/collection/graph") {
    bool coll = req.path == "/api/collection/graph";
    if (req.method == "GET") {
      return {200, json{{"revision", coll ? coll_revision_ : data_revision_},
                        {"groups", coll ? coll_graph_ : data_graph_}}};
    }
    if (req.method == "PUT") return PutGraph(req, coll);
  }
  return Error(404, absl::StrCat("no route ", req.method, " ", req.path));
}

FakeResponse FakeMetabase::PutGraph(const FakeRequest& req, bool collections) {
  json b = req.Json();
  int& revision = collections ? coll_revision_ : data_revision_;
  json& graph = collections ? coll_graph_ : data_graph_;
  if (!b.is_object() || !b.contains("revision") || !b["groups"].is_object()) {
    return Error(400, "revision and groups are required");
  }
  if (b["revision"] != revision) {
    return Error(409,
                 "Looks like someone else edited the permissions and your data is out of "
                 "date. Please fetch new data and try again.");
  }
  // Only the groups and objects sent change (Metabase applies the difference).
  for (const auto& [gid, objects] : b["groups"].items()) {
    if (!groups_.count(ToInt(gid))) return Error(400, "unknown group " + gid);
    for (const auto& [oid, entry] : objects.items()) {
      json stored = entry;
      if (!collections && shape_ == Shape::kCurrent && !entry.contains("data")) {
        return Error(400, "data permissions must be under \"data\"");
      }
      if (!collections && shape_ == Shape::kLegacy && entry.contains("data")) {
        return Error(400, "unknown key \"data\"");
      }
      graph[gid][oid] = stored;
    }
  }
  ++revision;
  return {200, json{{"revision", revision}, {"groups", graph}}};
}

}  // namespace sluice::access::testing
