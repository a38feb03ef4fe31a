#include "server/access/providers/metabase/metabase_client.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace sluice::access::metabase {

using nlohmann::json;

absl::StatusOr<Target> ParseTarget(const google::protobuf::Struct& credentials) {
  Target t;
  auto base = rest::BaseUrl(credentials);
  if (!base.ok()) return base.status();
  t.base = *base;
  // Guardian's Credentials read `username`; its docs' examples say `user`.
  t.username = rest::CredentialString(credentials, "username");
  if (t.username.empty()) t.username = rest::CredentialString(credentials, "user");
  if (t.username.empty()) {
    return absl::InvalidArgumentError(
        "credentials.username: required (the email of a Metabase administrator)");
  }
  auto password = rest::RequiredCredential(credentials, "password");
  if (!password.ok()) return password.status();
  t.password = *password;
  t.session_key = rest::SessionKey({"metabase", t.base, t.username, t.password});
  return t;
}

absl::StatusOr<rest::Session> Client::NewSession() {
  auto r = rest::DoJson(*http_,
                        {"POST",
                         target_.base + "/api/session",
                         {},
                         json{{"username", target_.username}, {"password", target_.password}}},
                        limits_);
  if (!r.ok()) return r.status();
  if (r->status == 400 || r->status == 401) {
    return absl::InvalidArgumentError(absl::StrCat(
        "credentials.username/credentials.password: Metabase at ", RedactUrl(target_.base),
        " refused the sign-in of \"", target_.username, "\" (HTTP ", r->status, ")"));
  }
  if (!r->ok()) return rest::VendorError("metabase POST /api/session", *r);
  std::string id = rest::Str(r->body, "id");
  if (id.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("metabase POST /api/session at ",
                                                      RedactUrl(target_.base),
                                                      ": no session id in the answer"));
  }
  return rest::Session{id};
}

absl::Status Client::SignIn() {
  auto s = sessions_->Get(target_.session_key, [this] { return NewSession(); });
  if (s.ok() || absl::IsInvalidArgument(s.status())) return s.status();
  return absl::InvalidArgumentError(absl::StrCat("credentials.host: cannot sign in to Metabase at ",
                                                 RedactUrl(target_.base), ": ",
                                                 s.status().message()));
}

absl::StatusOr<rest::JsonResponse> Client::Send(const std::string& method, const std::string& path,
                                                std::optional<json> body) {
  return sessions_->Call(
      target_.session_key, [this] { return NewSession(); },
      [&](const rest::Session& s) {
        return rest::DoJson(*http_,
                            {method, target_.base + path, {"X-Metabase-Session: " + s.token}, body},
                            limits_);
      });
}

absl::StatusOr<json> Client::Get(const std::string& path) {
  auto r = Send("GET", path, std::nullopt);
  if (!r.ok()) return r.status();
  if (!r->ok()) {
    auto q = path.find('?');
    return rest::VendorError(absl::StrCat("metabase GET ", path.substr(0, q)), *r);
  }
  return r->body;
}

absl::StatusOr<json> Client::Databases() {
  auto body = Get("/api/database?include=tables");
  if (!body.ok()) return body.status();
  if (body->is_array()) return *body;                        // 0.37
  if (body->is_object()) return rest::Array(*body, "data");  // 0.42+
  return json::array();
}

absl::StatusOr<json> Client::Collections() {
  auto body = Get("/api/collection");
  if (!body.ok()) return body.status();
  if (body->is_array()) return *body;
  return rest::Array(*body, "data");
}

absl::StatusOr<std::vector<Group>> Client::Groups() {
  auto body = Get("/api/permissions/group");
  if (!body.ok()) return body.status();
  std::vector<Group> out;
  if (!body->is_array()) return out;
  for (const auto& g : *body) {
    out.push_back({static_cast<int>(rest::Int(g, "id")), rest::Str(g, "name"),
                   static_cast<int>(rest::Int(g, "member_count"))});
  }
  return out;
}

absl::StatusOr<std::optional<User>> Client::FindUser(const std::string& email) {
  constexpr int kPage = 50;
  std::string want = absl::AsciiStrToLower(email);
  for (int offset = 0;; offset += kPage) {
    auto body = Get(
        absl::StrCat("/api/user?query=", UrlEscape(email), "&limit=", kPage, "&offset=", offset));
    if (!body.ok()) return body.status();
    // 0.37 answers an array (no paging); 0.42+ {"data": [...], "total": N}.
    const json& users = body->is_array() ? *body : rest::Array(*body, "data");
    for (const auto& u : users) {
      bool inactive = u.is_object() && u.contains("is_active") && u["is_active"].is_boolean() &&
                      !u["is_active"].get<bool>();
      if (absl::AsciiStrToLower(rest::Str(u, "email")) == want && !inactive) {
        return User{static_cast<int>(rest::Int(u, "id")), rest::Str(u, "email")};
      }
    }
    if (body->is_array() || static_cast<int>(users.size()) < kPage ||
        offset + kPage >= rest::Int(*body, "total")) {
      return std::optional<User>();
    }
  }
}

absl::StatusOr<std::vector<Member>> Client::Members(int id) {
  std::string path = absl::StrCat("/api/permissions/group/", id);
  auto r = Send("GET", path, std::nullopt);
  if (!r.ok()) return r.status();
  if (r->status == 404) return absl::NotFoundError(absl::StrCat("metabase group ", id, " is gone"));
  if (!r->ok()) return rest::VendorError("metabase GET /api/permissions/group/:id", *r);
  std::vector<Member> out;
  for (const auto& m : rest::Array(r->body, "members")) {
    out.push_back({static_cast<int>(rest::Int(m, "user_id")),
                   static_cast<int>(rest::Int(m, "membership_id")), rest::Str(m, "email")});
  }
  return out;
}

absl::StatusOr<int> Client::CreateGroup(const std::string& name) {
  auto r = Send("POST", "/api/permissions/group", json{{"name", name}});
  if (!r.ok()) return r.status();
  if (!r->ok()) return rest::VendorError("metabase POST /api/permissions/group", *r);
  int id = static_cast<int>(rest::Int(r->body, "id"));
  if (id == 0) return absl::FailedPreconditionError("metabase created a group without an id");
  return id;
}

absl::Status Client::AddMember(int group_id, int user_id) {
  auto r = Send("POST", "/api/permissions/membership",
                json{{"group_id", group_id}, {"user_id", user_id}});
  if (!r.ok()) return r.status();
  if (!r->ok()) return rest::VendorError("metabase POST /api/permissions/membership", *r);
  return absl::OkStatus();
}

absl::Status Client::RemoveMembership(int membership_id) {
  auto r =
      Send("DELETE", absl::StrCat("/api/permissions/membership/", membership_id), std::nullopt);
  if (!r.ok()) return r.status();
  if (r->status == 404 || r->ok()) return absl::OkStatus();
  return rest::VendorError("metabase DELETE /api/permissions/membership/:id", *r);
}

absl::StatusOr<Graph> Client::ReadGraph(bool collections) {
  auto body = Get(collections ? "/api/collection/graph" : "/api/permissions/graph");
  if (!body.ok()) return body.status();
  Graph g;
  g.revision = static_cast<int>(rest::Int(*body, "revision"));
  if (body->is_object() && body->contains("groups") && (*body)["groups"].is_object()) {
    g.groups = (*body)["groups"];
  }
  if (!collections) {
    for (const auto& [gid, dbs] : g.groups.items()) {
      if (!dbs.is_object()) continue;
      for (const auto& [db, perms] : dbs.items()) {
        if (perms.is_object() && (perms.contains("data") || perms.contains("download"))) {
          g.wrapped = true;
        }
      }
    }
  }
  return g;
}

absl::StatusOr<bool> Client::WriteGraph(bool collections, int revision, const json& groups) {
  std::string path = collections ? "/api/collection/graph" : "/api/permissions/graph";
  auto r = Send("PUT", path, json{{"revision", revision}, {"groups", groups}});
  if (!r.ok()) return r.status();
  if (r->status == 409) return false;
  if (!r->ok()) return rest::VendorError(absl::StrCat("metabase PUT ", path), *r);
  return true;
}

}  // namespace sluice::access::metabase
