#include "server/access/providers/gcloud_iam/gcloud_iam_provider.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "server/access/providers/gcp/gcp_api.h"

namespace sluice::access {
namespace {

using gcp::Api;
using gcp::Json;

// "project" for projects/..., "organization" for organizations/...
std::string ResourceType(const gcp::Credentials& c) {
  return c.IsProject() ? "project" : "organization";
}

// Cloud Resource Manager v1: v1/projects/<id> or v1/organizations/<id>.
std::string ResourceUrl(const gcp::Credentials& c) {
  return absl::StrCat(c.Url(Api::kResourceManager), "/", c.IsProject() ? "projects/" : "organizations/",
                      UrlEscape(c.ResourceId()));
}

class GcloudIamProvider : public ProviderClient {
 public:
  explicit GcloudIamProvider(std::shared_ptr<HttpClient> http)
      : api_(std::make_unique<gcp::GoogleApi>("gcloud_iam", std::move(http))) {}

  std::string Type() const override { return "gcloud_iam"; }

  std::vector<std::string> GetAccountTypes() const override {
    return {"user", "serviceAccount", "group"};
  }

  absl::Status ValidateConfig(const v1beta1::ProviderConfig& config) const override {
    auto creds = gcp::ParseCredentials(config.credentials(), /*projects_only=*/false);
    if (!creds.ok()) return creds.status();
    std::string type = ResourceType(*creds);
    for (int i = 0; i < config.resources_size(); ++i) {
      const auto& rc = config.resources(i);
      if (rc.type() != type) {
        return absl::InvalidArgumentError(absl::StrCat(
            "resources[", i, "].type: \"", rc.type(), "\" does not match credentials.resource_name ",
            creds->resource_name, " (want \"", type, "\")"));
      }
      for (int j = 0; j < rc.roles_size(); ++j) {
        std::string f = absl::StrCat("resources[", i, "].roles[", j, "].permissions");
        if (rc.roles(j).permissions().empty()) return absl::InvalidArgumentError(f + ": required");
        for (const auto& permission : rc.roles(j).permissions()) {
          const std::string p = PermissionString(permission);
          if (!gcp::IsRoleName(p)) {
            return absl::InvalidArgumentError(absl::StrCat(
                f, ": \"", p, "\" is not an IAM role name (roles/..., projects/*/roles/..., "
                              "organizations/*/roles/...)"));
          }
        }
      }
    }
    // The real calls: a token, the resource's IAM policy, its grantable roles
    // (Guardian's validatePermissions).
    if (auto st = api_->CheckKey(*creds); !st.ok()) {
      return gcp::ProbeError(*api_, "get an access token", st);
    }
    Json body = {{"options", {{"requestedPolicyVersion", 3}}}};
    auto policy = api_->Call(*creds, "POST", ResourceUrl(*creds) + ":getIamPolicy", &body);
    if (!policy.ok()) {
      return gcp::ProbeError(*api_, absl::StrCat("read the IAM policy of ", creds->resource_name),
                             policy.status());
    }
    auto roles = gcp::GrantableRoles(
        *api_, *creds, absl::StrCat("//cloudresourcemanager.googleapis.com/", creds->resource_name));
    if (!roles.ok()) return gcp::ProbeError(*api_, "query grantable roles", roles.status());
    for (int i = 0; i < config.resources_size(); ++i) {
      for (int j = 0; j < config.resources(i).roles_size(); ++j) {
        for (const auto& permission : config.resources(i).roles(j).permissions()) {
          const std::string p = PermissionString(permission);
          if (!std::binary_search(roles->begin(), roles->end(), p)) {
            return absl::InvalidArgumentError(absl::StrCat(
                "resources[", i, "].roles[", j, "].permissions: \"", p, "\" is not grantable on ",
                creds->resource_name, " (IAM roles:queryGrantableRoles)"));
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<v1beta1::Resource>> GetResources(
      const v1beta1::ProviderConfig& config) override {
    auto creds = gcp::ParseCredentials(config.credentials(), false);
    if (!creds.ok()) return creds.status();
    std::vector<v1beta1::Resource> out;
    for (const auto& rc : config.resources()) {
      if (rc.type() != ResourceType(*creds)) continue;
      v1beta1::Resource r;
      r.set_type(rc.type());
      r.set_urn(creds->resource_name);
      r.set_name(absl::StrCat(creds->resource_name, " - GCP IAM"));
      out.push_back(std::move(r));
    }
    return out;
  }

  absl::Status ValidateAccount(const v1beta1::ProviderConfig&, absl::string_view account_type,
                               absl::string_view account_id) override {
    return gcp::CheckAccount(std::string(account_type), std::string(account_id));
  }

  std::string NormalizeAccountId(absl::string_view account_type,
                                 absl::string_view account_id) const override {
    return gcp::NormalizeAccountId(account_type, account_id);
  }

  absl::Status GrantAccess(const v1beta1::ProviderConfig& config,
                           const AccessRequest& req) override {
    return Apply(config, req, true);
  }
  absl::Status RevokeAccess(const v1beta1::ProviderConfig& config,
                            const AccessRequest& req) override {
    return Apply(config, req, false);
  }

  absl::StatusOr<std::vector<ProviderAccess>> ListAccess(
      const v1beta1::ProviderConfig& config,
      const std::vector<v1beta1::Resource>& resources) override {
    auto creds = gcp::ParseCredentials(config.credentials(), false);
    if (!creds.ok()) return creds.status();
    std::vector<ProviderAccess> out;
    if (resources.empty()) return out;
    Json body = {{"options", {{"requestedPolicyVersion", 3}}}};
    auto policy = api_->Call(*creds, "POST", ResourceUrl(*creds) + ":getIamPolicy", &body);
    if (!policy.ok()) {
      return gcp::Outward(*api_, config, "reading " + creds->resource_name, policy.status());
    }
    for (const auto& r : resources) {
      if (r.urn() != creds->resource_name) continue;
      for (auto& a : gcp::AccessFromPolicy(*policy, r)) out.push_back(std::move(a));
    }
    return out;
  }

 private:
  absl::Status Apply(const v1beta1::ProviderConfig& config, const AccessRequest& req, bool grant) {
    auto creds = gcp::ParseCredentials(config.credentials(), false);
    if (!creds.ok()) return creds.status();
    if (req.resource.urn() != creds->resource_name) {
      return absl::InvalidArgumentError(absl::StrCat("gcloud_iam provider: resource \"",
                                                     req.resource.urn(), "\" is not ",
                                                     creds->resource_name));
    }
    if (auto st = gcp::CheckRequest(config, req, GetAccountTypes()); !st.ok()) return st;
    std::string url = ResourceUrl(*creds);
    std::string member = gcp::Member(req.account_type, req.account_id);
    auto read = [&]() {
      Json body = {{"options", {{"requestedPolicyVersion", 3}}}};
      return api_->Call(*creds, "POST", url + ":getIamPolicy", &body);
    };
    auto write = [&](const Json& policy) {
      Json body = {{"policy", policy}};
      return api_->Call(*creds, "POST", url + ":setIamPolicy", &body).status();
    };
    absl::Status st = api_->WithResourceLock(creds->resource_name, [&] {
      if (!grant) return gcp::RevokeAndVerify(read, write, req.permissions, member);
      return gcp::ReadModifyWrite(
          read, [&](Json* policy) { return gcp::AddBindings(policy, req.permissions, member); },
          write);
    });
    return gcp::Outward(*api_, config,
                        absl::StrCat(grant ? "granting " : "revoking ", req.role, " on ",
                                     creds->resource_name, grant ? " to " : " from ", member),
                        st);
  }

  std::unique_ptr<gcp::GoogleApi> api_;
};

}  // namespace

std::unique_ptr<ProviderClient> NewGcloudIamProvider(std::shared_ptr<HttpClient> http) {
  return std::make_unique<GcloudIamProvider>(std::move(http));
}

std::unique_ptr<ProviderClient> NewGcloudIamProvider() {
  return NewGcloudIamProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
}

}  // namespace sluice::access
