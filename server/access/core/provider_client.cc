#include "server/access/core/provider_client.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/access/core/json.h"

namespace sluice::access {

std::string PermissionString(const google::protobuf::Value& permission) {
  if (permission.has_string_value()) return permission.string_value();
  if (permission.has_struct_value()) {
    const auto& f = permission.struct_value().fields();
    auto name = f.find("name");
    auto type = f.find("type");
    bool plain = name != f.end() && name->second.has_string_value() &&
                 (type == f.end() || type->second.has_string_value()) &&
                 f.size() == (type == f.end() ? 1u : 2u);
    if (plain) {
      std::string out = name->second.string_value();
      if (type != f.end() && !type->second.string_value().empty()) {
        absl::StrAppend(&out, "@", type->second.string_value());
      }
      return out;
    }
  }
  return ProtoToJson(permission).dump();  // keys sorted: the same object, the same string
}

absl::StatusOr<std::vector<v1beta1::Role>> ProviderClient::GetRoles(
    const v1beta1::ProviderConfig& config, absl::string_view resource_type) const {
  for (const auto& rc : config.resources()) {
    if (rc.type() == resource_type) return std::vector<v1beta1::Role>(rc.roles().begin(), rc.roles().end());
  }
  return absl::NotFoundError(absl::StrCat("provider ", config.type(), "/", config.urn(),
                                          " has no resource type \"", resource_type, "\""));
}

absl::Status ProviderClient::ValidateAccount(const v1beta1::ProviderConfig&, absl::string_view,
                                             absl::string_view account_id) {
  if (account_id.empty()) return absl::InvalidArgumentError("account_id: required");
  return absl::OkStatus();
}

absl::StatusOr<std::string> ProviderClient::GrantAccessWithState(
    const v1beta1::ProviderConfig& config, const AccessRequest& request) {
  if (auto st = GrantAccess(config, request); !st.ok()) return st;
  return std::string();
}

std::string ProviderClient::NormalizeAccountId(absl::string_view,
                                              absl::string_view account_id) const {
  return std::string(account_id);
}

absl::StatusOr<std::vector<ProviderAccess>> ProviderClient::ListAccess(
    const v1beta1::ProviderConfig& config, const std::vector<v1beta1::Resource>&) {
  return absl::UnimplementedError(
      absl::StrCat("provider type \"", config.type(), "\" cannot list existing access"));
}

absl::StatusOr<std::vector<v1beta1::ProviderActivity>> ProviderClient::GetActivities(
    const v1beta1::ProviderConfig& config, const ActivityQuery&) {
  return absl::UnimplementedError(
      absl::StrCat("provider type \"", config.type(), "\" does not support activity import"));
}

ProviderRegistry::ProviderRegistry(std::vector<std::unique_ptr<ProviderClient>> clients) {
  for (auto& c : clients) {
    std::string type = c->Type();
    clients_[type] = std::move(c);
  }
}

absl::StatusOr<ProviderClient*> ProviderRegistry::Find(absl::string_view type) const {
  auto it = clients_.find(type);
  if (it == clients_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("type: unknown provider type \"", type,
                                                   "\"; known types: ",
                                                   absl::StrJoin(Types(), ", ")));
  }
  return it->second.get();
}

std::vector<std::string> ProviderRegistry::Types() const {
  std::vector<std::string> out;
  for (const auto& kv : clients_) out.push_back(kv.first);
  return out;
}

}  // namespace sluice::access
