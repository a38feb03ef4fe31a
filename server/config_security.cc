// The security sections of the server config: `auth:`, `tls:`, `outbound:`.
#include <set>

#include <yaml-cpp/yaml.h>

#include "absl/strings/str_cat.h"
#include "server/config.h"

namespace sluice::server {
namespace {

absl::Status Keys(const YAML::Node& node, const std::string& where,
                  const std::set<std::string>& known) {
  if (!node.IsMap()) return absl::InvalidArgumentError(absl::StrCat(where, ": must be a mapping"));
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) absl::StrAppend(&list, list.empty() ? "" : ", ", k);
      return absl::InvalidArgumentError(
          absl::StrCat("unknown config key \"", where, ".", key, "\" (known: ", list, ")"));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status Get(const YAML::Node& node, const std::string& where, const std::string& key,
                 T* out) {
  if (!node[key]) return absl::OkStatus();
  try {
    *out = node[key].as<T>();
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("config key \"", where, ".", key, "\": ", e.msg));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<auth::AuthMode> ParseAuthMode(absl::string_view name) {
  if (name == "header") return auth::AuthMode::kHeader;
  if (name == "jwt") return auth::AuthMode::kJwt;
  if (name == "insecure_dev") return auth::AuthMode::kInsecureDev;
  return absl::InvalidArgumentError(
      absl::StrCat("auth.mode: \"", name, "\" is not one of header, jwt, insecure_dev"));
}

absl::Status ParseAuthSection(const YAML::Node& node, auth::AuthOptions* out) {
  if (!node || node.IsNull()) return absl::OkStatus();
  if (auto st = Keys(node, "auth", {"mode", "header", "jwt"}); !st.ok()) return st;
  std::string mode = std::string(auth::AuthModeName(out->mode));
  if (auto st = Get(node, "auth", "mode", &mode); !st.ok()) return st;
  auto parsed = ParseAuthMode(mode);
  if (!parsed.ok()) return parsed.status();
  out->mode = *parsed;
  if (YAML::Node h = node["header"]) {
    if (auto st = Keys(h, "auth.header",
                       {"identity_header", "proxy_token_file", "proxy_token_env", "mtls_identity"});
        !st.ok()) {
      return st;
    }
    std::string mtls_identity = std::string(auth::MtlsIdentityName(out->mtls_identity));
    for (auto st : {Get(h, "auth.header", "identity_header", &out->identity_header),
                    Get(h, "auth.header", "proxy_token_file", &out->proxy_token.file),
                    Get(h, "auth.header", "proxy_token_env", &out->proxy_token.env),
                    Get(h, "auth.header", "mtls_identity", &mtls_identity)}) {
      if (!st.ok()) return st;
    }
    auto from = auth::ParseMtlsIdentity(mtls_identity);
    if (!from.ok()) return from.status();
    out->mtls_identity = *from;
  }
  if (YAML::Node j = node["jwt"]) {
    if (auto st = Keys(j, "auth.jwt",
                       {"jwks_url", "static_key_file", "issuer", "audiences", "algorithms",
                        "identity_claim", "groups_claim", "jwks_cache_seconds", "leeway_seconds"});
        !st.ok()) {
      return st;
    }
    auth::JwtOptions& o = out->jwt;
    int cache = static_cast<int>(absl::ToInt64Seconds(o.jwks_cache_ttl));
    int leeway = static_cast<int>(absl::ToInt64Seconds(o.leeway));
    for (auto st : {Get(j, "auth.jwt", "jwks_url", &o.jwks_url),
                    Get(j, "auth.jwt", "static_key_file", &o.static_key_file),
                    Get(j, "auth.jwt", "issuer", &o.issuer),
                    Get(j, "auth.jwt", "audiences", &o.audiences),
                    Get(j, "auth.jwt", "algorithms", &o.algorithms),
                    Get(j, "auth.jwt", "identity_claim", &o.identity_claim),
                    Get(j, "auth.jwt", "groups_claim", &o.groups_claim),
                    Get(j, "auth.jwt", "jwks_cache_seconds", &cache),
                    Get(j, "auth.jwt", "leeway_seconds", &leeway)}) {
      if (!st.ok()) return st;
    }
    if (cache < 1 || leeway < 0 || leeway > 600) {
      return absl::InvalidArgumentError(
          "auth.jwt: jwks_cache_seconds must be ≥ 1 and leeway_seconds 0-600");
    }
    o.jwks_cache_ttl = absl::Seconds(cache);
    o.leeway = absl::Seconds(leeway);
  }
  return absl::OkStatus();
}

absl::Status ParseTlsSection(const YAML::Node& node, auth::TlsServerOptions* out) {
  if (!node || node.IsNull()) return absl::OkStatus();
  if (auto st = Keys(node, "tls", {"cert_file", "key_file", "client_ca_file", "client_allowed_names"});
      !st.ok()) {
    return st;
  }
  for (auto st : {Get(node, "tls", "cert_file", &out->cert_file),
                  Get(node, "tls", "key_file", &out->key_file),
                  Get(node, "tls", "client_ca_file", &out->client_ca_file),
                  Get(node, "tls", "client_allowed_names", &out->client_allowed_names)}) {
    if (!st.ok()) return st;
  }
  if (!out->client_allowed_names.empty() && out->client_ca_file.empty()) {
    return absl::InvalidArgumentError("tls.client_allowed_names: needs tls.client_ca_file (mTLS)");
  }
  return absl::OkStatus();
}

absl::Status ParseOutboundSection(const YAML::Node& node, OutboundPolicy* out) {
  if (!node || node.IsNull()) return absl::OkStatus();
  if (auto st = Keys(node, "outbound", {"deny_cidrs"}); !st.ok()) return st;
  std::vector<std::string> cidrs;
  if (auto st = Get(node, "outbound", "deny_cidrs", &cidrs); !st.ok()) return st;
  out->deny_cidrs.clear();
  for (const auto& c : cidrs) {
    auto parsed = ParseCidr(c);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("outbound.deny_cidrs: ", parsed.status().message()));
    }
    out->deny_cidrs.push_back(*parsed);
  }
  return absl::OkStatus();
}

}  // namespace sluice::server
