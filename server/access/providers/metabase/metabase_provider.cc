#include "server/access/providers/metabase/metabase_provider.h"

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/access/core/json.h"
#include "server/access/providers/metabase/metabase_client.h"

namespace sluice::access {
namespace {

using metabase::Client;
using nlohmann::json;

// Guardian's prefix of the groups it creates (resource.go GuardianGroupPrefix),
// kept so that groups made by Guardian are found and reused.
constexpr char kGroupPrefix[] = "_guardian_";
constexpr int kGraphAttempts = 8;

const std::map<std::string, std::set<std::string>>& AllowedPermissions() {
  static const auto* m = new std::map<std::string, std::set<std::string>>{
      {"database", {"schemas:all", "native:write"}},
      {"table", {"all"}},
      {"collection", {"read", "write"}},
      {"group", {"member"}},
  };
  return *m;
}

// The numeric id after "<prefix>:" in a urn; InvalidArgument otherwise.
absl::StatusOr<std::string> UrnId(const v1beta1::Resource& r, const std::string& prefix) {
  std::string want = prefix + ":";
  std::string id = r.urn().substr(std::min(want.size(), r.urn().size()));
  int n = 0;
  if (!absl::StartsWith(r.urn(), want) || !absl::SimpleAtoi(id, &n) || n <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("metabase ", r.type(), " urn \"", r.urn(), "\" is not ", want, "<id>"));
  }
  return id;
}

// What one permission on one resource means in Metabase.
struct Binding {
  std::string group_name;    // the _guardian_ group holding it
  bool collections = false;  // collection graph (else data graph)
  std::string object_id;     // database or collection id in the graph
  json desired;              // the group's entry for object_id
};

absl::StatusOr<Binding> BindingFor(const v1beta1::Resource& r, const std::string& perm) {
  const auto& allowed = AllowedPermissions();
  auto it = allowed.find(r.type());
  if (it == allowed.end() || r.type() == "group") {
    return absl::InvalidArgumentError(
        absl::StrCat("metabase provider: unsupported resource type \"", r.type(), "\""));
  }
  if (!it->second.count(perm)) {
    return absl::InvalidArgumentError(absl::StrCat("metabase ", r.type(), " permission \"", perm,
                                                   "\" is not one of ",
                                                   absl::StrJoin(it->second, ", ")));
  }
  Binding b;
  if (r.type() == "database") {
    auto id = UrnId(r, "database");
    if (!id.ok()) return id.status();
    b.object_id = *id;
    b.desired = perm == "native:write" ? json{{"native", "write"}, {"schemas", "all"}}
                                       : json{{"schemas", "all"}};
    b.group_name = absl::StrCat(kGroupPrefix, "database_", *id, "_", perm);
  } else if (r.type() == "table") {
    std::vector<std::string> parts = absl::StrSplit(r.urn().substr(r.urn().find(':') + 1), '.');
    int db = 0, table = 0;
    if (!absl::StartsWith(r.urn(), "table:") || parts.size() != 2 ||
        !absl::SimpleAtoi(parts[0], &db) || !absl::SimpleAtoi(parts[1], &table)) {
      return absl::InvalidArgumentError(
          absl::StrCat("metabase table urn \"", r.urn(), "\" is not table:<db id>.<table id>"));
    }
    auto f = r.details().fields().find("schema");
    // Guardian writes "public"; the table's own schema is what Metabase checks.
    std::string schema = f != r.details().fields().end() && f->second.has_string_value()
                             ? f->second.string_value()
                             : "public";
    b.object_id = parts[0];
    b.desired = json{{"schemas", {{schema, {{parts[1], "all"}}}}}};
    b.group_name = absl::StrCat(kGroupPrefix, "table_", parts[0], "_", parts[1], "_all");
  } else {
    auto id = UrnId(r, "collection");
    if (!id.ok()) return id.status();
    b.collections = true;
    b.object_id = *id;
    b.desired = perm;
    b.group_name = absl::StrCat(kGroupPrefix, "collection_", *id, "_", perm);
  }
  return b;
}

// A database entry's data permissions (0.43+ nest them under "data").
json DataPart(const json& entry) {
  if (entry.is_object() && entry.contains("data")) return entry["data"];
  return entry;
}

// "native:write", "schemas:all" and "table:<db>.<id>" → "all" of one data
// graph entry, as Guardian's fetchDatabasePermissions reads them.
void ReadDataEntry(const std::string& db, const json& entry, std::vector<std::string>* db_perms,
                   std::map<std::string, std::string>* table_perms) {
  json data = DataPart(entry);
  if (!data.is_object()) return;
  for (const auto& [key, value] : data.items()) {
    if (value.is_string() && value != "none") {
      db_perms->push_back(absl::StrCat(key, ":", value.get<std::string>()));
    } else if (key == "schemas" && value.is_object()) {
      for (const auto& [schema, tables] : value.items()) {
        if (!tables.is_object()) continue;
        for (const auto& [tid, p] : tables.items()) {
          if (p.is_string() && p != "none") {
            (*table_perms)[absl::StrCat(db, ".", tid)] = p.get<std::string>();
          }
        }
      }
    }
  }
}

class MetabaseProvider : public ProviderClient {
 public:
  MetabaseProvider(HttpClient* http, rest::CallLimits limits) : http_(http), limits_(limits) {}

  std::string Type() const override { return "metabase"; }
  std::vector<std::string> GetAccountTypes() const override { return {"user"}; }

  absl::Status ValidateConfig(const v1beta1::ProviderConfig& config) const override {
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    const auto& allowed = AllowedPermissions();
    for (int i = 0; i < config.resources_size(); ++i) {
      const auto& rc = config.resources(i);
      auto types = allowed.find(rc.type());
      if (types == allowed.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "resources[", i, "].type: \"", rc.type(),
            "\" is not a metabase resource type (database, table, collection, group)"));
      }
      for (int j = 0; j < rc.roles_size(); ++j) {
        std::string f = absl::StrCat("resources[", i, "].roles[", j, "].permissions");
        if (rc.roles(j).permissions().empty() && rc.type() != "group") {
          return absl::InvalidArgumentError(f + ": required");
        }
        for (const auto& p : rc.roles(j).permissions()) {
          if (!p.has_string_value() || !types->second.count(p.string_value())) {
            return absl::InvalidArgumentError(
                absl::StrCat(f, ": \"", PermissionString(p), "\" is not a metabase ", rc.type(),
                             " permission (allowed: ", absl::StrJoin(types->second, ", "), ")"));
          }
        }
      }
    }
    return client->SignIn();
  }

  absl::StatusOr<std::vector<v1beta1::Resource>> GetResources(
      const v1beta1::ProviderConfig& config) override {
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    std::set<std::string> want;
    for (const auto& rc : config.resources()) want.insert(rc.type());
    auto groups = client->Groups();
    if (!groups.ok()) return groups.status();
    std::map<std::string, std::string> group_names;  // id → name, ours left out
    for (const auto& g : *groups) {
      if (!absl::StartsWith(g.name, kGroupPrefix)) group_names[std::to_string(g.id)] = g.name;
    }
    auto data_graph = client->ReadGraph(false);
    if (!data_graph.ok()) return data_graph.status();
    auto coll_graph = client->ReadGraph(true);
    if (!coll_graph.ok()) return coll_graph.status();

    // Who holds what, by urn: [{urn: "group:<id>", name, permissions}].
    std::map<std::string, std::vector<json>> holders;
    std::map<std::string, std::vector<json>> group_db, group_coll;  // by group id
    for (const auto& [gid, dbs] : data_graph->groups.items()) {
      if (!group_names.count(gid) || !dbs.is_object()) continue;
      for (const auto& [db, entry] : dbs.items()) {
        std::vector<std::string> perms;
        std::map<std::string, std::string> tables;
        ReadDataEntry(db, entry, &perms, &tables);
        auto who = [&](const json& permissions) {
          return json{
              {"urn", "group:" + gid}, {"name", group_names[gid]}, {"permissions", permissions}};
        };
        if (!perms.empty()) {
          holders["database:" + db].push_back(who(perms));
          group_db[gid].push_back({{"urn", "database:" + db}, {"permissions", perms}});
        }
        for (const auto& [t, p] : tables) holders["table:" + t].push_back(who(json::array({p})));
      }
    }
    for (const auto& [gid, colls] : coll_graph->groups.items()) {
      if (!group_names.count(gid) || !colls.is_object()) continue;
      for (const auto& [cid, p] : colls.items()) {
        if (!p.is_string() || p == "none") continue;
        json who = {
            {"urn", "group:" + gid}, {"name", group_names[gid]}, {"permissions", json::array({p})}};
        holders["collection:" + cid].push_back(who);
        group_coll[gid].push_back(
            {{"urn", "collection:" + cid}, {"permissions", json::array({p})}});
      }
    }

    std::vector<v1beta1::Resource> out;
    auto add = [&](v1beta1::Resource r, json details) {
      auto h = holders.find(r.urn());
      if (h != holders.end()) details["groups"] = h->second;
      *r.mutable_details() = JsonToStruct(details);
      out.push_back(std::move(r));
    };
    if (want.count("database") || want.count("table")) {
      auto dbs = client->Databases();
      if (!dbs.ok()) return dbs.status();
      for (const auto& d : *dbs) {
        std::string id = rest::Str(d, "id");
        v1beta1::Resource r;
        if (want.count("database")) {
          r.set_type("database");
          r.set_urn("database:" + id);
          r.set_name(rest::Str(d, "name"));
          add(r, {{"id", rest::Int(d, "id")},
                  {"engine", rest::Str(d, "engine")},
                  {"timezone", rest::Str(d, "timezone")},
                  {"native_permissions", rest::Str(d, "native_permissions")}});
        }
        if (!want.count("table")) continue;
        for (const auto& t : rest::Array(d, "tables")) {
          v1beta1::Resource tr;
          tr.set_type("table");
          tr.set_urn(absl::StrCat("table:", id, ".", rest::Str(t, "id")));
          tr.set_name(rest::Str(t, "name"));
          add(tr, {{"id", rest::Int(t, "id")},
                   {"database_id", rest::Int(d, "id")},
                   {"database_name", rest::Str(d, "name")},
                   {"schema", rest::Str(t, "schema")},
                   {"display_name", rest::Str(t, "display_name")}});
        }
      }
    }
    if (want.count("collection")) {
      auto colls = client->Collections();
      if (!colls.ok()) return colls.status();
      std::map<std::string, std::string> names;
      for (const auto& c : *colls) names[rest::Str(c, "id")] = rest::Str(c, "name");
      for (const auto& c : *colls) {
        std::string id = rest::Str(c, "id");
        bool personal =
            c.is_object() && c.contains("personal_owner_id") && !c["personal_owner_id"].is_null();
        bool archived = c.is_object() && c.value("archived", json(false)) == json(true);
        if (id.empty() || id == "root" || rest::Int(c, "id") == 0 || personal || archived) continue;
        // Guardian names a collection by its path: "parent/child/name".
        std::string location = rest::Str(c, "location"), path, parent;
        for (absl::string_view p : absl::StrSplit(location, '/', absl::SkipEmpty())) {
          parent = std::string(p);
          absl::StrAppend(&path, names.count(parent) ? names[parent] : parent, "/");
        }
        v1beta1::Resource r;
        r.set_type("collection");
        r.set_urn("collection:" + id);
        r.set_name(path + rest::Str(c, "name"));
        json details = {
            {"id", rest::Int(c, "id")}, {"location", location}, {"slug", rest::Str(c, "slug")}};
        if (!parent.empty()) details["parent_id"] = parent;
        if (!rest::Str(c, "namespace").empty()) details["namespace"] = rest::Str(c, "namespace");
        add(r, details);
      }
    }
    if (want.count("group")) {
      for (const auto& g : *groups) {
        std::string id = std::to_string(g.id);
        if (!group_names.count(id)) continue;
        v1beta1::Resource r;
        r.set_type("group");
        r.set_urn("group:" + id);
        r.set_name(g.name);
        json details = {
            {"id", g.id},
            {"member_count", g.member_count},
            {"database", group_db.count(id) ? json(group_db[id]) : json::array()},
            {"collection", group_coll.count(id) ? json(group_coll[id]) : json::array()}};
        *r.mutable_details() = JsonToStruct(details);
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
          "account_id: \"", account_id, "\" is not an active user of the Metabase of provider ",
          config.urn(), " (accounts are Metabase users' emails)"));
    }
    return absl::OkStatus();
  }

  absl::Status GrantAccess(const v1beta1::ProviderConfig& config,
                           const AccessRequest& req) override {
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    auto user = client->FindUser(req.account_id);
    if (!user.ok()) return user.status();
    if (!user->has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("metabase provider ", config.urn(), ": account \"", req.account_id,
                       "\" is not an active Metabase user (create the user in Metabase first)"));
    }
    int user_id = (*user)->id;
    if (req.resource.type() == "group") {
      auto gid = UrnId(req.resource, "group");
      if (!gid.ok()) return gid.status();
      return Join(*client, std::stoi(*gid), user_id);
    }
    if (req.permissions.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("role \"", req.role, "\" has no permissions"));
    }
    for (const auto& perm : req.permissions) {
      auto b = BindingFor(req.resource, perm);
      if (!b.ok()) return b.status();
      absl::StatusOr<int> gid;
      {
        // One creator of each group in this process; the graph revision
        // guards against other writers.
        absl::MutexLock lock(locks_.For(client->target().base + "\n" + b->group_name));
        gid = FindGroup(*client, b->group_name);
        if (!gid.ok()) return gid.status();
        if (*gid == 0) {
          gid = client->CreateGroup(b->group_name);
          if (!gid.ok()) return gid.status();
        }
        if (auto st = EnsureGraph(*client, *b, *gid); !st.ok()) return st;
      }
      if (auto st = Join(*client, *gid, user_id); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  absl::Status RevokeAccess(const v1beta1::ProviderConfig& config,
                            const AccessRequest& req) override {
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    auto user = client->FindUser(req.account_id);
    if (!user.ok()) return user.status();
    if (!user->has_value()) return absl::OkStatus();  // no such user: nothing to revoke
    std::vector<int> groups;
    if (req.resource.type() == "group") {
      auto gid = UrnId(req.resource, "group");
      if (!gid.ok()) return gid.status();
      groups.push_back(std::stoi(*gid));
    } else {
      for (const auto& perm : req.permissions) {
        auto b = BindingFor(req.resource, perm);
        if (!b.ok()) return b.status();
        auto gid = FindGroup(*client, b->group_name);
        if (!gid.ok()) return gid.status();
        if (*gid != 0) groups.push_back(*gid);
      }
    }
    for (int gid : groups) {
      auto members = client->Members(gid);
      if (absl::IsNotFound(members.status())) continue;
      if (!members.ok()) return members.status();
      for (const auto& m : *members) {
        if (m.user_id != (*user)->id) continue;
        if (auto st = client->RemoveMembership(m.membership_id); !st.ok()) return st;
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<ProviderAccess>> ListAccess(
      const v1beta1::ProviderConfig& config,
      const std::vector<v1beta1::Resource>& resources) override {
    auto client = ClientFor(config);
    if (!client.ok()) return client.status();
    auto groups = client->Groups();
    if (!groups.ok()) return groups.status();
    // Which group ids stand for which (resource, permission).
    std::map<int, std::pair<const v1beta1::Resource*, std::string>> wanted;
    std::map<std::string, int> by_name;
    for (const auto& g : *groups) by_name[g.name] = g.id;
    for (const auto& r : resources) {
      if (r.type() == "group") {
        auto gid = UrnId(r, "group");
        if (gid.ok()) wanted[std::stoi(*gid)] = {&r, "member"};
        continue;
      }
      auto types = AllowedPermissions().find(r.type());
      if (types == AllowedPermissions().end()) continue;
      for (const auto& perm : types->second) {
        auto b = BindingFor(r, perm);
        if (b.ok() && by_name.count(b->group_name)) wanted[by_name[b->group_name]] = {&r, perm};
      }
    }
    std::map<std::pair<std::string, std::string>, ProviderAccess> merged;
    for (const auto& [gid, what] : wanted) {
      auto members = client->Members(gid);
      if (absl::IsNotFound(members.status())) continue;
      if (!members.ok()) return members.status();
      for (const auto& m : *members) {
        auto& a = merged[{what.first->urn(), m.email}];
        a.resource_type = what.first->type();
        a.resource_urn = what.first->urn();
        a.account_id = m.email;
        a.account_type = "user";
        a.permissions.push_back(what.second);
      }
    }
    std::vector<ProviderAccess> out;
    for (auto& [k, a] : merged) out.push_back(std::move(a));
    return out;
  }

 private:
  absl::StatusOr<Client> ClientFor(const v1beta1::ProviderConfig& config) const {
    auto target = metabase::ParseTarget(config.credentials());
    if (!target.ok()) return target.status();
    return Client(http_, &sessions_, limits_, *target);
  }

  // The id of the group named `name`, or 0.
  static absl::StatusOr<int> FindGroup(Client& client, const std::string& name) {
    auto groups = client.Groups();
    if (!groups.ok()) return groups.status();
    for (const auto& g : *groups) {
      if (g.name == name) return g.id;
    }
    return 0;
  }

  // Gives group `gid` exactly b.desired on b.object_id, read-modify-write
  // on the graph's revision (Metabase answers 409 to a stale one).
  static absl::Status EnsureGraph(Client& client, const Binding& b, int gid) {
    std::string g = std::to_string(gid);
    for (int attempt = 0; attempt < kGraphAttempts; ++attempt) {
      auto graph = client.ReadGraph(b.collections);
      if (!graph.ok()) return graph.status();
      json current;
      if (graph->groups.contains(g) && graph->groups[g].is_object() &&
          graph->groups[g].contains(b.object_id)) {
        current = graph->groups[g][b.object_id];
      }
      if ((b.collections ? current : DataPart(current)) == b.desired) return absl::OkStatus();
      json entry = graph->wrapped && !b.collections ? json{{"data", b.desired}} : b.desired;
      auto applied =
          client.WriteGraph(b.collections, graph->revision, {{g, {{b.object_id, entry}}}});
      if (!applied.ok()) return applied.status();
      if (*applied) return absl::OkStatus();
    }
    return absl::AbortedError(
        absl::StrCat("metabase: the ", b.collections ? "collection" : "data",
                     " permission graph kept changing under concurrent writers (409 ",
                     kGraphAttempts, " times); try again"));
  }

  // Adds the user to group `gid` unless already a member.
  static absl::Status Join(Client& client, int gid, int user_id) {
    auto members = client.Members(gid);
    if (absl::IsNotFound(members.status())) {
      return absl::FailedPreconditionError(
          absl::StrCat("metabase group ", gid, " no longer exists"));
    }
    if (!members.ok()) return members.status();
    for (const auto& m : *members) {
      if (m.user_id == user_id) return absl::OkStatus();
    }
    return client.AddMember(gid, user_id);
  }

  HttpClient* http_;
  rest::CallLimits limits_;
  mutable rest::SessionCache sessions_;
  rest::KeyedLocks locks_;
};

}  // namespace

std::unique_ptr<ProviderClient> NewMetabaseProvider(HttpClient* http, rest::CallLimits limits) {
  return std::make_unique<MetabaseProvider>(http, limits);
}

}  // namespace sluice::access
