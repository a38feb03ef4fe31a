#include "server/access/core/provider_service.h"

#include <set>

#include <google/protobuf/util/message_differencer.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/expr/expr.h"
#include "server/access/core/json.h"
#include "server/access/core/policy_rules.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {
namespace {

bool IsSecretKey(absl::string_view key) {
  std::string k = absl::AsciiStrToLower(key);
  return absl::StrContains(k, "password") || absl::StrContains(k, "secret") ||
         absl::StrContains(k, "token") || absl::StrContains(k, "key");
}

void MaskValue(google::protobuf::Value* v, bool secret) {
  if (v->has_struct_value()) {
    MaskCredentials(v->mutable_struct_value());
  } else if (v->has_list_value()) {
    for (auto& e : *v->mutable_list_value()->mutable_values()) MaskValue(&e, secret);
  } else if (secret && v->kind_case() != google::protobuf::Value::kNullValue) {
    v->set_string_value(kMaskedSecret);
  }
}

// Where a provider's sealed credentials live (the AAD of their ciphertext):
// type and urn are the provider's immutable, unique name.
std::string CredentialsContext(const std::string& type, const std::string& urn) {
  return absl::StrCat("providers/", type, "/", urn, "/credentials");
}

// Secrets come in plain text: a ciphertext from a client would make the
// server decrypt it on its behalf (review M1).
absl::Status RejectCiphertexts(const google::protobuf::Struct& credentials) {
  for (const auto& [k, v] : credentials.fields()) {
    if (!IsSecretKey(k) || !v.has_string_value()) continue;
    if (auto st = Crypter::RejectCiphertext("credentials." + k, v.string_value()); !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

// Review C5: when `changes` moves a credential's destination (any non-secret
// key: host, port, url, ...), every stored secret must come again in the
// same request, so a stored password never goes to a new destination.
absl::Status SecretsFollowDestination(const google::protobuf::Struct& stored,
                                      const google::protobuf::Struct& changes) {
  std::string moved;
  for (const auto& [k, v] : changes.fields()) {
    if (IsSecretKey(k)) continue;
    auto it = stored.fields().find(k);
    if (it == stored.fields().end()) {
      moved = k;
      break;
    }
    // A value sent back as GET shows it (nested secrets masked) is unchanged.
    google::protobuf::Value shown = it->second;
    MaskValue(&shown, /*secret=*/false);
    if (!google::protobuf::util::MessageDifferencer::Equals(it->second, v) &&
        !google::protobuf::util::MessageDifferencer::Equals(shown, v)) {
      moved = k;
      break;
    }
  }
  if (moved.empty()) return absl::OkStatus();
  for (const auto& [k, v] : stored.fields()) {
    if (!IsSecretKey(k)) continue;
    auto given = changes.fields().find(k);
    if (given == changes.fields().end() ||
        (given->second.has_string_value() && given->second.string_value() == kMaskedSecret)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "credentials.", k, ": must be supplied again when credentials.", moved,
          " changes (a stored secret is never sent to a new destination)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void MaskCredentials(google::protobuf::Struct* credentials) {
  for (auto& kv : *credentials->mutable_fields()) MaskValue(&kv.second, IsSecretKey(kv.first));
}

absl::Status ProviderService::Validate(const pb::ProviderConfig& config,
                                       ProviderClient** client) {
  if (config.type().empty()) return absl::InvalidArgumentError("type: required");
  auto found = registry_->Find(config.type());
  if (!found.ok()) return found.status();
  *client = *found;
  if (config.urn().empty()) return absl::InvalidArgumentError("urn: required");
  if (config.resources().empty()) return absl::InvalidArgumentError("resources: required");
  if (config.allowed_account_types().empty()) {
    return absl::InvalidArgumentError("allowed_account_types: required");
  }
  auto supported = (*client)->GetAccountTypes();
  for (const auto& t : config.allowed_account_types()) {
    if (std::find(supported.begin(), supported.end(), t) == supported.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("allowed_account_types: \"", t, "\" is not supported by provider type \"",
                       config.type(), "\" (supported: ", absl::StrJoin(supported, ", "), ")"));
    }
  }
  if (!config.appeal().allow_active_access_extension_in().empty()) {
    auto d = ParseDurationField("appeal.allow_active_access_extension_in",
                                config.appeal().allow_active_access_extension_in());
    if (!d.ok()) return d.status();
  }
  std::set<std::string> types;
  for (int i = 0; i < config.resources_size(); ++i) {
    const auto& rc = config.resources(i);
    std::string f = absl::StrCat("resources[", i, "]");
    if (rc.type().empty()) return absl::InvalidArgumentError(f + ".type: required");
    if (!types.insert(rc.type()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(f, ".type: duplicate resource type \"", rc.type(), "\""));
    }
    if (rc.policy().id().empty() || rc.policy().version() == 0) {
      return absl::InvalidArgumentError(f + ".policy: id and version are required");
    }
    if (rc.roles().empty()) return absl::InvalidArgumentError(f + ".roles: required");
    std::set<std::string> roles;
    for (int j = 0; j < rc.roles_size(); ++j) {
      if (rc.roles(j).id().empty()) {
        return absl::InvalidArgumentError(absl::StrCat(f, ".roles[", j, "].id: required"));
      }
      if (!roles.insert(rc.roles(j).id()).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(f, ".roles[", j, "].id: duplicate role \"", rc.roles(j).id(), "\""));
      }
    }
    if (!rc.filter().empty()) {
      if (auto st = CheckExpression(f + ".filter", rc.filter()); !st.ok()) return st;
    }
  }
  std::vector<pb::PolicyRef> picked;  // the policies[] specs, parsed
  for (int i = 0; i < config.policies_size(); ++i) {
    const auto& entry = config.policies(i);
    std::string f = absl::StrCat("policies[", i, "]");
    if (entry.when().empty()) return absl::InvalidArgumentError(f + ".when: required");
    if (auto st = CheckExpression(f + ".when", entry.when()); !st.ok()) return st;
    auto ref = ParsePolicySpec(f + ".policy", entry.policy());
    if (!ref.ok()) return ref.status();
    picked.push_back(*ref);
  }
  if (auto st = (*client)->ValidateConfig(config); !st.ok()) return st;
  // Referenced policies must exist (after the cheap checks).
  for (size_t i = 0; i < picked.size(); ++i) {
    auto p = policies_->Get(picked[i].id(), picked[i].version());
    if (absl::IsNotFound(p.status())) {
      return absl::NotFoundError(absl::StrCat("policies[", i, "].policy: policy \"",
                                              config.policies(i).policy(), "\" not found"));
    }
    if (!p.ok()) return p.status();
  }
  for (int i = 0; i < config.resources_size(); ++i) {
    const auto& ref = config.resources(i).policy();
    auto p = policies_->Get(ref.id(), ref.version());
    if (absl::IsNotFound(p.status())) {
      return absl::NotFoundError(absl::StrCat("resources[", i, "].policy: policy \"", ref.id(),
                                              "\" version ", ref.version(), " not found"));
    }
    if (!p.ok()) return p.status();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<pb::Resource>> ProviderService::Fetch(
    ProviderClient* client, const pb::ProviderConfig& config) {
  auto fetched = client->GetResources(config);
  if (!fetched.ok()) return fetched.status();
  std::vector<pb::Resource> kept;
  for (auto& r : *fetched) {
    r.set_provider_type(config.type());
    r.set_provider_urn(config.urn());
    const pb::ResourceConfig* rc = nullptr;
    for (const auto& c : config.resources()) {
      if (c.type() == r.type()) rc = &c;
    }
    if (rc == nullptr) continue;  // type not configured
    if (!rc->filter().empty()) {
      auto program = expr::Program::Compile(rc->filter());
      if (!program.ok()) return program.status();
      nlohmann::json doc = ProtoToJson(r);
      expr::Environment env;
      env.BindJson("$resource", &doc);
      auto keep = (*program)->EvaluateTruthy(env);
      if (!keep.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "filter of resource type \"", r.type(), "\" failed on ", r.urn(), ": ",
            keep.status().message()));
      }
      if (!*keep) continue;
    }
    kept.push_back(std::move(r));
  }
  return kept;
}

absl::StatusOr<StoredProvider> ProviderService::Seal(const pb::Provider& provider) {
  StoredProvider stored;
  stored.provider = provider;
  auto* config = stored.provider.mutable_config();
  if (config->has_credentials()) {
    auto enc = crypter_->Encrypt(ProtoToJsonString(config->credentials()),
                                 CredentialsContext(provider.type(), provider.urn()));
    if (!enc.ok()) return enc.status();
    stored.encrypted_credentials = *enc;
    config->clear_credentials();
  }
  return stored;
}

absl::StatusOr<pb::ProviderConfig> ProviderService::Unseal(const StoredProvider& stored) {
  pb::ProviderConfig config = stored.provider.config();
  if (!stored.encrypted_credentials.empty()) {
    auto dec = crypter_->Decrypt(stored.encrypted_credentials,
                                 CredentialsContext(stored.provider.type(), stored.provider.urn()));
    if (!dec.ok()) return dec.status();
    if (auto st = JsonStringToProto(*dec, config.mutable_credentials()); !st.ok()) return st;
  }
  return config;
}

pb::Provider ProviderService::Masked(const StoredProvider& stored) {
  pb::Provider p = stored.provider;
  auto config = Unseal(stored);
  if (config.ok()) {
    *p.mutable_config() = *config;
    MaskCredentials(p.mutable_config()->mutable_credentials());
    if (p.config().credentials().fields().empty()) p.mutable_config()->clear_credentials();
  }
  return p;
}

namespace {

// The provider a dry run would have stored, with masked credentials.
pb::Provider DryRunResult(pb::Provider provider) {
  MaskCredentials(provider.mutable_config()->mutable_credentials());
  if (provider.config().credentials().fields().empty()) {
    provider.mutable_config()->clear_credentials();
  }
  return provider;
}

// `given` with each masked value (at any depth) replaced by the value
// stored at the same path, into `out`. InvalidArgument naming the path when
// a masked value has nothing stored behind it.
absl::Status Unmask(const google::protobuf::Struct& stored, const google::protobuf::Struct& given,
                    const std::string& path, google::protobuf::Struct* out) {
  for (const auto& [key, value] : given.fields()) {
    std::string at = absl::StrCat(path, ".", key);
    auto kept = stored.fields().find(key);
    const bool has_kept = kept != stored.fields().end();
    if (value.has_string_value() && value.string_value() == kMaskedSecret) {
      if (!has_kept) {
        return absl::InvalidArgumentError(absl::StrCat(
            at, ": \"", kMaskedSecret,
            "\" stands for the stored value, and none is stored: send the value itself"));
      }
      (*out->mutable_fields())[key] = kept->second;
    } else if (value.has_struct_value()) {
      google::protobuf::Struct empty;
      const auto& inner = has_kept && kept->second.has_struct_value() ? kept->second.struct_value()
                                                                       : empty;
      if (auto st = Unmask(inner, value.struct_value(), at,
                           (*out->mutable_fields())[key].mutable_struct_value());
          !st.ok()) {
        return st;
      }
    } else {
      (*out->mutable_fields())[key] = value;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<pb::Provider> ProviderService::Create(pb::ProviderConfig config,
                                                     const std::string& actor, bool dry_run) {
  // Guardian's default (core/provider/service.go): a config without
  // allowed_account_types allows every account type its plugin supports.
  if (config.allowed_account_types().empty()) {
    if (auto found = registry_->Find(config.type()); found.ok()) {
      for (const auto& t : (*found)->GetAccountTypes()) config.add_allowed_account_types(t);
    }
  }
  ProviderClient* client = nullptr;
  if (auto st = Validate(config, &client); !st.ok()) return st;
  if (auto st = RejectCiphertexts(config.credentials()); !st.ok()) return st;
  auto existing = providers_->GetByTypeUrn(config.type(), config.urn());
  if (existing.ok()) {
    return absl::AlreadyExistsError(absl::StrCat("provider with type \"", config.type(),
                                                 "\" and urn \"", config.urn(),
                                                 "\" already exists"));
  }
  if (!absl::IsNotFound(existing.status())) return existing.status();
  auto resources = Fetch(client, config);
  if (!resources.ok()) return resources.status();
  pb::Provider provider;
  provider.set_type(config.type());
  provider.set_urn(config.urn());
  *provider.mutable_config() = config;
  auto now = ToTimestamp(absl::Now());
  *provider.mutable_created_at() = now;
  *provider.mutable_updated_at() = now;
  if (dry_run) return DryRunResult(std::move(provider));
  auto stored = Seal(provider);
  if (!stored.ok()) return stored.status();
  auto created = providers_->Create(
      *stored, *resources,
      {"provider.create", actor,
       {{"type", config.type()}, {"urn", config.urn()}, {"resources", resources->size()}}});
  if (absl::IsAlreadyExists(created.status())) {
    return absl::AlreadyExistsError(absl::StrCat("provider with type \"", config.type(),
                                                 "\" and urn \"", config.urn(),
                                                 "\" already exists"));
  }
  if (!created.ok()) return created.status();
  return Masked(*created);
}

absl::StatusOr<pb::Provider> ProviderService::Update(const std::string& id,
                                                     const pb::ProviderConfig& changes,
                                                     const std::string& actor, bool dry_run) {
  auto stored = providers_->Get(id);
  if (!stored.ok()) return stored.status();
  auto current = Unseal(*stored);
  if (!current.ok()) return current.status();
  if (!changes.type().empty() && changes.type() != current->type()) {
    return absl::InvalidArgumentError("type: cannot be changed");
  }
  if (!changes.urn().empty() && changes.urn() != current->urn()) {
    return absl::InvalidArgumentError("urn: cannot be changed");
  }
  // Guardian's UpdateProvider (api/handler/v1beta1/provider.go, then
  // core/provider/service.go Update) stores the request's config as it is:
  // a field left out is cleared, not kept. Type and urn may be left out (the
  // provider's own), and masked credential values keep the stored secret.
  pb::ProviderConfig merged = changes;
  merged.set_type(current->type());
  merged.set_urn(current->urn());
  if (merged.allowed_account_types().empty()) {
    if (auto found = registry_->Find(merged.type()); found.ok()) {
      for (const auto& t : (*found)->GetAccountTypes()) merged.add_allowed_account_types(t);
    }
  }
  merged.clear_credentials();
  if (changes.has_credentials()) {
    if (auto st = RejectCiphertexts(changes.credentials()); !st.ok()) return st;
    if (auto st = SecretsFollowDestination(current->credentials(), changes.credentials());
        !st.ok()) {
      return st;
    }
    if (auto st = Unmask(current->credentials(), changes.credentials(), "credentials",
                         merged.mutable_credentials());
        !st.ok()) {
      return st;
    }
  }
  ProviderClient* client = nullptr;
  if (auto st = Validate(merged, &client); !st.ok()) return st;
  auto resources = Fetch(client, merged);
  if (!resources.ok()) return resources.status();
  pb::Provider provider = stored->provider;
  *provider.mutable_config() = merged;
  *provider.mutable_updated_at() = ToTimestamp(absl::Now());
  if (dry_run) return DryRunResult(std::move(provider));
  auto sealed = Seal(provider);
  if (!sealed.ok()) return sealed.status();
  auto updated = providers_->Update(
      *sealed, *resources,
      {"provider.update", actor,
       {{"id", id}, {"type", merged.type()}, {"urn", merged.urn()},
        {"resources", resources->size()}}});
  if (!updated.ok()) return updated.status();
  Invalidate();
  return Masked(*updated);
}

absl::StatusOr<pb::Provider> ProviderService::Get(const std::string& id) {
  auto stored = providers_->Get(id);
  if (!stored.ok()) return stored.status();
  return Masked(*stored);
}

absl::StatusOr<std::vector<pb::Provider>> ProviderService::List(const Page& page,
                                                                int64_t* total,
                                                                const ProviderFilter& filter) {
  auto stored = providers_->ListPage(page, total, filter);
  if (!stored.ok()) return stored.status();
  std::vector<pb::Provider> out;
  for (const auto& s : *stored) out.push_back(Masked(s));
  return out;
}

absl::Status ProviderService::Delete(const std::string& id, const std::string& actor) {
  auto st = providers_->Delete(id, {"provider.delete", actor, {{"id", id}}});
  Invalidate();
  return st;
}

absl::StatusOr<std::vector<pb::Role>> ProviderService::ListRoles(
    const std::string& id, const std::string& resource_type) {
  auto stored = providers_->Get(id);
  if (!stored.ok()) return stored.status();
  auto client = registry_->Find(stored->provider.type());
  if (!client.ok()) return client.status();
  return (*client)->GetRoles(stored->provider.config(), resource_type);
}

ProviderService::SyncReport ProviderService::SyncAll() {
  SyncReport report;
  auto all = providers_->List();
  if (!all.ok()) {
    spdlog::error("msg=\"resource sync: cannot list providers\" error=\"{}\"",
                  std::string(all.status().message()));
    report.providers_failed = 1;
    return report;
  }
  for (const auto& stored : *all) {
    int64_t count = 0;
    absl::Status st = [&]() -> absl::Status {
      auto config = Unseal(stored);
      if (!config.ok()) return config.status();
      auto client = registry_->Find(config->type());
      if (!client.ok()) return client.status();
      auto resources = Fetch(*client, *config);
      if (!resources.ok()) return resources.status();
      count = static_cast<int64_t>(resources->size());
      return providers_->SyncResources(
          stored.provider, *resources,
          {"provider.sync", "system",
           {{"id", stored.provider.id()}, {"resources", resources->size()}}});
    }();
    if (!st.ok()) {
      ++report.providers_failed;
      spdlog::warn("msg=\"resource sync failed\" provider={} error=\"{}\"", stored.provider.id(),
                   std::string(st.message()));
    } else {
      ++report.providers_synced;
      report.resources += count;
    }
  }
  return report;
}

absl::StatusOr<pb::ProviderConfig> ProviderService::GetPlainConfig(const std::string& type,
                                                                   const std::string& urn) {
  std::string key = absl::StrCat(type, "/", urn);
  absl::Time now = absl::Now();
  {
    absl::MutexLock lock(&mu_);
    auto it = config_cache_.find(key);
    if (it != config_cache_.end() && now - it->second.first < absl::Seconds(2)) {
      return it->second.second;
    }
  }
  auto stored = providers_->GetByTypeUrn(type, urn);
  if (!stored.ok()) return stored.status();
  auto config = Unseal(*stored);
  if (!config.ok()) return config.status();
  absl::MutexLock lock(&mu_);
  config_cache_[key] = {now, *config};
  return config;
}

void ProviderService::Invalidate() {
  absl::MutexLock lock(&mu_);
  config_cache_.clear();
}

absl::StatusOr<std::map<std::string, pb::ProviderConfig>> ProviderService::PlainConfigs() {
  auto all = providers_->List();
  if (!all.ok()) return all.status();
  std::map<std::string, pb::ProviderConfig> out;
  for (const auto& stored : *all) {
    auto config = Unseal(stored);
    if (!config.ok()) return config.status();
    out[absl::StrCat(config->type(), "/", config->urn())] = std::move(*config);
  }
  return out;
}

// Issue 28's routes.

absl::StatusOr<pb::Provider> ProviderService::UpdateByTypeUrn(const std::string& type,
                                                              const std::string& urn,
                                                              const pb::ProviderConfig& changes,
                                                              const std::string& actor,
                                                              bool dry_run) {
  if (type.empty()) return absl::InvalidArgumentError("config.type: required");
  if (urn.empty()) return absl::InvalidArgumentError("config.urn: required");
  auto stored = providers_->GetByTypeUrn(type, urn);
  if (absl::IsNotFound(stored.status())) {
    return absl::NotFoundError(
        absl::StrCat("provider with type \"", type, "\" and urn \"", urn, "\" not found"));
  }
  if (!stored.ok()) return stored.status();
  return Update(stored->provider.id(), changes, actor, dry_run);
}

absl::StatusOr<std::vector<pb::ProviderType>> ProviderService::Types() {
  auto stored = providers_->ResourceTypes();
  if (!stored.ok()) return stored.status();
  std::vector<pb::ProviderType> out;
  for (const std::string& name : registry_->Types()) {
    pb::ProviderType t;
    t.set_name(name);
    auto it = stored->find(name);
    if (it != stored->end()) {
      for (const std::string& rt : it->second) t.add_resource_types(rt);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace sluice::access
