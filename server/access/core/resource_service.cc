// ResourceService (declared in provider_service.h): the resources the
// providers' syncs keep, and those created by hand.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/access/core/json.h"
#include "server/access/core/provider_service.h"

namespace sluice::access {


absl::StatusOr<std::vector<pb::Resource>> ResourceService::List(const ResourceFilter& filter,
                                                                const Page& page,
                                                                int64_t* total) {
  return repo_->List(filter, page, total);
}

absl::StatusOr<pb::Resource> ResourceService::Get(const std::string& id) { return repo_->Get(id); }

absl::StatusOr<pb::Resource> ResourceService::Update(const std::string& id,
                                                     const pb::Resource& changes,
                                                     const std::string& actor) {
  return repo_->Update(id, changes.details(), changes.labels().empty() ? nullptr : &changes.labels(),
                       {"resource.update", actor,
                        {{"id", id}, {"details", StructToJson(changes.details())}}});
}

absl::Status ResourceService::Delete(const std::string& id, const std::string& actor) {
  return repo_->Delete(id, {"resource.delete", actor, {{"id", id}}});
}

absl::StatusOr<pb::Resource> ResourceService::Create(const pb::Resource& resource,
                                                     const std::string& actor) {
  for (const auto& [field, value] :
       {std::pair<const char*, const std::string*>{"resource.provider_type", &resource.provider_type()},
        {"resource.provider_urn", &resource.provider_urn()},
        {"resource.type", &resource.type()},
        {"resource.urn", &resource.urn()}}) {
    if (value->empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  }
  if (providers_ == nullptr) {
    return absl::FailedPreconditionError("creating resources is not configured");
  }
  auto config = providers_->GetPlainConfig(resource.provider_type(), resource.provider_urn());
  if (absl::IsNotFound(config.status())) {
    return absl::NotFoundError(absl::StrCat("provider with type \"", resource.provider_type(),
                                            "\" and urn \"", resource.provider_urn(),
                                            "\" does not exist"));
  }
  if (!config.ok()) return config.status();
  std::vector<std::string> types;
  bool known = false;
  for (const auto& rc : config->resources()) {
    types.push_back(rc.type());
    known = known || rc.type() == resource.type();
  }
  if (!known) {
    return absl::InvalidArgumentError(absl::StrCat(
        "resource.type: \"", resource.type(), "\" is not a resource type of provider ",
        resource.provider_urn(), " (types: ", absl::StrJoin(types, ", "), ")"));
  }
  pb::Resource r;
  r.set_provider_type(resource.provider_type());
  r.set_provider_urn(resource.provider_urn());
  r.set_type(resource.type());
  r.set_urn(resource.urn());
  r.set_name(resource.name());
  *r.mutable_details() = resource.details();
  *r.mutable_labels() = resource.labels();
  return repo_->Create(r, {"resource.create", actor,
                           {{"provider_type", r.provider_type()},
                            {"provider_urn", r.provider_urn()},
                            {"type", r.type()},
                            {"urn", r.urn()}}});
}

}  // namespace sluice::access
