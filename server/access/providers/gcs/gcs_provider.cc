#include "server/access/providers/gcs/gcs_provider.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/access/providers/gcp/gcp_api.h"

namespace sluice::access {
namespace {

using gcp::Api;
using gcp::Json;

// Guardian's gcs config.go: the bucket roles it accepts (its
// BucketRoleOwner constant carries a stray trailing space; the real name
// is used here).
const std::set<std::string>& BucketRoles() {
  static const auto* roles = new std::set<std::string>{
      "roles/storage.admin",
      "roles/storage.legacyBucketOwner",
      "roles/storage.legacyBucketReader",
      "roles/storage.legacyBucketWriter",
      "roles/storage.legacyObjectOwner",
      "roles/storage.legacyObjectReader",
      "roles/storage.objectAdmin",
      "roles/storage.objectCreator",
      "roles/storage.objectViewer",
  };
  return *roles;
}

std::string BucketUrl(const gcp::Credentials& c, const std::string& bucket) {
  return absl::StrCat(c.Url(Api::kStorage), "/b/", UrlEscape(bucket));
}

class GcsProvider : public ProviderClient {
 public:
  explicit GcsProvider(std::shared_ptr<HttpClient> http)
      : api_(std::make_unique<gcp::GoogleApi>("gcs", std::move(http))) {}

  std::string Type() const override { return "gcs"; }

  std::vector<std::string> GetAccountTypes() const override {
    return {"user", "serviceAccount", "group", "domain"};
  }

  absl::Status ValidateConfig(const v1beta1::ProviderConfig& config) const override {
    auto creds = gcp::ParseCredentials(config.credentials(), /*projects_only=*/true);
    if (!creds.ok()) return creds.status();
    for (int i = 0; i < config.resources_size(); ++i) {
      const auto& rc = config.resources(i);
      if (rc.type() != "bucket") {
        return absl::InvalidArgumentError(absl::StrCat(
            "resources[", i, "].type: \"", rc.type(), "\" is not a gcs resource type (bucket)"));
      }
      for (int j = 0; j < rc.roles_size(); ++j) {
        std::string f = absl::StrCat("resources[", i, "].roles[", j, "].permissions");
        if (rc.roles(j).permissions().empty()) return absl::InvalidArgumentError(f + ": required");
        for (const auto& permission : rc.roles(j).permissions()) {
          const std::string p = PermissionString(permission);
          if (!BucketRoles().count(p)) {
            return absl::InvalidArgumentError(absl::StrCat(
                f, ": \"", p, "\" is not a bucket role (allowed: ",
                absl::StrJoin(BucketRoles(), ", "), ")"));
          }
        }
      }
    }
    // The real call: a token, then one page of the project's buckets.
    if (auto st = api_->CheckKey(*creds); !st.ok()) {
      return gcp::ProbeError(*api_, "get an access token", st);
    }
    auto page = api_->Call(*creds, "GET", ListUrl(*creds) + "&maxResults=1");
    if (!page.ok()) {
      return gcp::ProbeError(*api_, absl::StrCat("list the buckets of ", creds->resource_name),
                             page.status());
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<v1beta1::Resource>> GetResources(
      const v1beta1::ProviderConfig& config) override {
    auto creds = gcp::ParseCredentials(config.credentials(), true);
    if (!creds.ok()) return creds.status();
    auto buckets = gcp::ListAll(*api_, *creds, ListUrl(*creds) + "&maxResults=1000", "items");
    if (!buckets.ok()) return gcp::Outward(*api_, config, "listing buckets", buckets.status());
    std::vector<v1beta1::Resource> out;
    for (const auto& b : *buckets) {
      v1beta1::Resource r;
      r.set_type("bucket");
      r.set_urn(b.value("name", ""));
      r.set_name(r.urn());
      if (b.contains("labels") && b["labels"].is_object() && !b["labels"].empty()) {
        auto& meta = (*r.mutable_details()->mutable_fields())["__metadata"];
        auto& labels = *(*meta.mutable_struct_value()->mutable_fields())["labels"]
                            .mutable_struct_value()
                            ->mutable_fields();
        for (const auto& [k, v] : b["labels"].items()) {
          labels[k].set_string_value(v.is_string() ? v.get<std::string>() : v.dump());
        }
      }
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
    auto creds = gcp::ParseCredentials(config.credentials(), true);
    if (!creds.ok()) return creds.status();
    std::vector<ProviderAccess> out;
    for (const auto& r : resources) {
      if (r.type() != "bucket") continue;
      auto policy = api_->Call(*creds, "GET", BucketUrl(*creds, r.urn()) + "/iam");
      if (!policy.ok()) return gcp::Outward(*api_, config, "reading " + r.urn(), policy.status());
      for (auto& a : gcp::AccessFromPolicy(*policy, r)) out.push_back(std::move(a));
    }
    return out;
  }

 private:
  static std::string ListUrl(const gcp::Credentials& c) {
    return absl::StrCat(c.Url(Api::kStorage), "/b?project=", UrlEscape(c.ResourceId()));
  }

  absl::Status Apply(const v1beta1::ProviderConfig& config, const AccessRequest& req, bool grant) {
    auto creds = gcp::ParseCredentials(config.credentials(), true);
    if (!creds.ok()) return creds.status();
    if (req.resource.type() != "bucket" || req.resource.urn().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("gcs provider: unsupported resource type \"", req.resource.type(), "\""));
    }
    if (auto st = gcp::CheckRequest(config, req, GetAccountTypes()); !st.ok()) return st;
    std::string url = BucketUrl(*creds, req.resource.urn()) + "/iam";
    std::string member = gcp::Member(req.account_type, req.account_id);
    auto read = [&]() { return api_->Call(*creds, "GET", url); };
    auto write = [&](const Json& policy) {
      // The policy goes back as read, etag included (a stale one is 412).
      return api_->Call(*creds, "PUT", url, &policy).status();
    };
    absl::Status st = api_->WithResourceLock(req.resource.urn(), [&] {
      if (!grant) return gcp::RevokeAndVerify(read, write, req.permissions, member);
      return gcp::ReadModifyWrite(
          read, [&](Json* policy) { return gcp::AddBindings(policy, req.permissions, member); },
          write);
    });
    if (!grant && absl::IsNotFound(st)) return absl::OkStatus();  // bucket gone: access gone
    return gcp::Outward(*api_, config,
                        absl::StrCat(grant ? "granting " : "revoking ", req.role, " on bucket ",
                                     req.resource.urn(), grant ? " to " : " from ", member),
                        st);
  }

  std::unique_ptr<gcp::GoogleApi> api_;
};

}  // namespace

std::unique_ptr<ProviderClient> NewGcsProvider(std::shared_ptr<HttpClient> http) {
  return std::make_unique<GcsProvider>(std::move(http));
}

std::unique_ptr<ProviderClient> NewGcsProvider() {
  return NewGcsProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
}

}  // namespace sluice::access
