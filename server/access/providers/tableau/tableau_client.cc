#include "server/access/providers/tableau/tableau_client.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace sluice::access::tableau {

using nlohmann::json;

constexpr int kPageSize = 1000;  // Tableau's maximum pageSize

absl::StatusOr<Target> ParseTarget(const google::protobuf::Struct& credentials) {
  Target t;
  auto base = rest::BaseUrl(credentials);
  if (!base.ok()) return base.status();
  t.base = *base;
  for (auto [key, out] :
       {std::pair<const char*, std::string*>{"username", &t.username}, {"password", &t.password}}) {
    auto v = rest::RequiredCredential(credentials, key);
    if (!v.ok()) return v.status();
    *out = *v;
  }
  // The site's content url ("" is the default site) must be given.
  if (!credentials.fields().count("content_url")) {
    return absl::InvalidArgumentError(
        "credentials.content_url: required (the site's content url, \"\" for the default site)");
  }
  t.content_url = rest::CredentialString(credentials, "content_url");
  t.api_version = rest::CredentialString(credentials, "api_version");
  if (t.api_version.empty()) t.api_version = "3.12";
  for (char c : t.api_version) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.')) {
      return absl::InvalidArgumentError("credentials.api_version: want a version such as \"3.12\"");
    }
  }
  t.session_key =
      rest::SessionKey({"tableau", t.base, t.content_url, t.api_version, t.username, t.password});
  return t;
}

absl::StatusOr<rest::Session> Client::NewSession() {
  json body = {{"credentials",
                {{"name", target_.username},
                 {"password", target_.password},
                 {"site", {{"contentUrl", target_.content_url}}}}}};
  auto r = rest::DoJson(
      *http_,
      {"POST", absl::StrCat(target_.base, "/api/", target_.api_version, "/auth/signin"), {}, body},
      limits_);
  if (!r.ok()) return r.status();
  if (r->status == 401 || r->status == 400 || r->status == 404) {
    return absl::InvalidArgumentError(absl::StrCat(
        "credentials.username/credentials.password/credentials.content_url: Tableau at ",
        RedactUrl(target_.base), " refused the sign-in of \"", target_.username, "\" to site \"",
        target_.content_url, "\" (HTTP ", r->status, ")"));
  }
  if (!r->ok()) return rest::VendorError("tableau POST auth/signin", *r);
  const json& c = rest::Field(r->body, "credentials");
  rest::Session s{rest::Str(c, "token"), rest::Str(rest::Field(c, "site"), "id"),
                  rest::Str(rest::Field(c, "user"), "id")};
  if (s.token.empty() || s.site_id.empty()) {
    return absl::FailedPreconditionError("tableau sign-in answered without a token or site id");
  }
  return s;
}

absl::Status Client::SignIn() {
  auto s = sessions_->Get(target_.session_key, [this] { return NewSession(); });
  if (s.ok() || absl::IsInvalidArgument(s.status())) return s.status();
  return absl::InvalidArgumentError(absl::StrCat("credentials.host: cannot sign in to Tableau at ",
                                                 RedactUrl(target_.base), ": ",
                                                 s.status().message()));
}

absl::StatusOr<rest::JsonResponse> Client::Send(const std::string& method, const std::string& path,
                                                std::optional<json> body) {
  return sessions_->Call(
      target_.session_key, [this] { return NewSession(); },
      [&](const rest::Session& s) {
        std::string url = absl::StrCat(target_.base, "/api/", target_.api_version, "/sites/",
                                       s.site_id, "/", path);
        return rest::DoJson(*http_, {method, url, {"X-Tableau-Auth: " + s.token}, body}, limits_);
      });
}

absl::Status Client::Check(const std::string& what, const absl::StatusOr<rest::JsonResponse>& r) {
  if (!r.ok()) return r.status();
  if (!r->ok()) return rest::VendorError("tableau " + what, *r);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<json>> Client::ListAll(const std::string& plural,
                                                  const std::string& singular) {
  std::vector<json> out;
  for (int page = 1;; ++page) {
    auto r = Send("GET", absl::StrCat(plural, "?pageSize=", kPageSize, "&pageNumber=", page),
                  std::nullopt);
    if (auto st = Check("GET " + plural, r); !st.ok()) return st;
    const json& body = r->body;
    const json& items = rest::Array(rest::Field(body, plural.c_str()), singular.c_str());
    for (const auto& i : items) out.push_back(i);
    long long total = rest::Int(rest::Field(body, "pagination"), "totalAvailable");
    if (items.empty() || static_cast<long long>(page) * kPageSize >= total) break;
  }
  return out;
}

absl::StatusOr<std::optional<User>> Client::FindUser(const std::string& name) {
  auto r = Send("GET", "users?filter=" + UrlEscape("name:eq:" + name), std::nullopt);
  if (auto st = Check("GET users", r); !st.ok()) return st;
  const json& users = rest::Array(rest::Field(r->body, "users"), "user");
  for (const auto& u : users) {
    if (rest::Str(u, "name") == name) {
      return std::optional<User>(User{rest::Str(u, "id"), name, rest::Str(u, "siteRole")});
    }
  }
  return std::optional<User>();
}

absl::Status Client::SetSiteRole(const std::string& user_id, const std::string& site_role) {
  return Check("PUT users/:id", Send("PUT", "users/" + UrlEscape(user_id),
                                     json{{"user", {{"siteRole", site_role}}}}));
}

absl::StatusOr<json> Client::Grantees(const std::string& plural, const std::string& id) {
  auto r = Send("GET", absl::StrCat(plural, "/", UrlEscape(id), "/permissions"), std::nullopt);
  if (r.ok() && r->status == 404) return absl::NotFoundError(id + " is gone");
  if (auto st = Check("GET " + plural + "/:id/permissions", r); !st.ok()) return st;
  return rest::Array(rest::Field(r->body, "permissions"), "granteeCapabilities");
}

absl::Status Client::AddCapabilities(const std::string& plural, const std::string& id,
                                     const std::string& user_id,
                                     const std::vector<std::pair<std::string, std::string>>& caps) {
  json list = json::array();
  for (const auto& [name, mode] : caps) list.push_back({{"name", name}, {"mode", mode}});
  json body = {
      {"permissions",
       {{"granteeCapabilities",
         json::array({{{"user", {{"id", user_id}}}, {"capabilities", {{"capability", list}}}}})}}}};
  return Check("PUT " + plural + "/:id/permissions",
               Send("PUT", absl::StrCat(plural, "/", UrlEscape(id), "/permissions"), body));
}

absl::Status Client::DeleteCapability(const std::string& plural, const std::string& id,
                                      const std::string& user_id, const std::string& name,
                                      const std::string& mode) {
  auto r = Send("DELETE",
                absl::StrCat(plural, "/", UrlEscape(id), "/permissions/users/", UrlEscape(user_id),
                             "/", UrlEscape(name), "/", UrlEscape(mode)),
                std::nullopt);
  if (r.ok() && r->status == 404) return absl::OkStatus();  // already gone
  return Check("DELETE " + plural + "/:id/permissions", r);
}

}  // namespace sluice::access::tableau
