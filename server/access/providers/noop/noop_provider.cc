#include "server/access/providers/noop/noop_provider.h"

#include "absl/strings/str_cat.h"

namespace sluice::access {
namespace {

class NoopProvider : public ProviderClient {
 public:
  std::string Type() const override { return "noop"; }

  absl::Status ValidateConfig(const v1beta1::ProviderConfig& config) const override {
    if (config.allowed_account_types_size() != 1 || config.allowed_account_types(0) != "user") {
      return absl::InvalidArgumentError(
          "allowed_account_types: the noop provider requires exactly [\"user\"]");
    }
    if (config.has_credentials() && !config.credentials().fields().empty()) {
      return absl::InvalidArgumentError("credentials: the noop provider takes no credentials");
    }
    if (config.resources_size() != 1 || config.resources(0).type() != "noop") {
      return absl::InvalidArgumentError(
          "resources: the noop provider requires exactly one resource config of type \"noop\"");
    }
    for (int j = 0; j < config.resources(0).roles_size(); ++j) {
      if (!config.resources(0).roles(j).permissions().empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "resources[0].roles[", j, "].permissions: must be empty for the noop provider"));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<v1beta1::Resource>> GetResources(
      const v1beta1::ProviderConfig& config) override {
    v1beta1::Resource r;
    r.set_provider_type("noop");
    r.set_provider_urn(config.urn());
    r.set_type("noop");
    r.set_urn(config.urn());
    r.set_name(config.urn());
    return std::vector<v1beta1::Resource>{r};
  }

  std::vector<std::string> GetAccountTypes() const override { return {"user"}; }

  absl::Status GrantAccess(const v1beta1::ProviderConfig&, const AccessRequest&) override {
    return absl::OkStatus();
  }
  absl::Status RevokeAccess(const v1beta1::ProviderConfig&, const AccessRequest&) override {
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<ProviderClient> NewNoopProvider() { return std::make_unique<NoopProvider>(); }

}  // namespace sluice::access
