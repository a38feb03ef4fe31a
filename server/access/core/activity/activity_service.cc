#include "server/access/core/activity/activity_service.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/access/core/validation.h"

namespace sluice::access {

std::string Rfc3339(const google::protobuf::Timestamp& ts) {
  if (ts.seconds() == 0 && ts.nanos() == 0) return "";
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%SZ", absl::FromUnixSeconds(ts.seconds()),
                          absl::UTCTimeZone());
}

absl::StatusOr<std::vector<pb::ProviderActivity>> ActivityService::Import(
    const pb::ImportActivitiesRequest& request) {
  if (request.provider_id().empty()) return absl::InvalidArgumentError("provider_id: required");
  auto provider = providers_->Get(request.provider_id());
  if (!provider.ok()) return provider.status();
  auto client = registry_->Find(provider->type());
  if (!client.ok()) return client.status();
  if (!(*client)->SupportsActivities()) {
    // Guardian's ErrImportActivitiesMethodNotSupported.
    return absl::FailedPreconditionError(absl::StrCat(
        "provider type \"", provider->type(), "\" does not support activity import"));
  }
  auto config = providers_->GetPlainConfig(provider->type(), provider->urn());
  if (!config.ok()) return config.status();
  ActivityQuery query;
  query.account_ids.assign(request.account_ids().begin(), request.account_ids().end());
  // Guardian's PopulateResources: every id must name a resource.
  for (int i = 0; i < request.resource_ids_size(); ++i) {
    const std::string& id = request.resource_ids(i);
    auto r = resources_->Get(id);
    if (absl::IsNotFound(r.status()) || absl::IsInvalidArgument(r.status())) {
      return absl::InvalidArgumentError(
          absl::StrCat("resource_ids[", i, "]: resource \"", id, "\" not found"));
    }
    if (!r.ok()) return r.status();
    if (r->provider_type() != provider->type() || r->provider_urn() != provider->urn()) {
      return absl::InvalidArgumentError(absl::StrCat("resource_ids[", i, "]: resource \"", id,
                                                     "\" is not of provider ",
                                                     request.provider_id()));
    }
    query.resources.push_back(std::move(*r));
  }
  query.timestamp_gte = Rfc3339(request.timestamp_gte());
  query.timestamp_lte = Rfc3339(request.timestamp_lte());
  auto got = (*client)->GetActivities(*config, query);
  if (!got.ok()) return got.status();
  for (pb::ProviderActivity& a : *got) {
    a.set_provider_id(provider->id());
    a.mutable_resource()->set_provider_type(provider->type());
    a.mutable_resource()->set_provider_urn(provider->urn());
  }
  if (auto st = activities_->BulkUpsert(&*got); !st.ok()) return st;
  return std::move(*got);
}

absl::StatusOr<pb::ProviderActivity> ActivityService::Get(const std::string& id) {
  return activities_->Get(id);
}

absl::StatusOr<std::vector<pb::ProviderActivity>> ActivityService::List(
    const ActivityFilter& filter) {
  return activities_->List(filter);
}

}  // namespace sluice::access
