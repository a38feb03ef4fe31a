#include "server/access/api/filters.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

// The page of a list request into a filter's size and offset (ParsePage).
template <typename Request, typename Filter>
absl::Status SetPage(const Request& request, Filter* f) {
  auto page = ParsePage(request.size(), request.offset());
  if (!page.ok()) return page.status();
  f->size = page->size;
  f->offset = page->offset;
  return absl::OkStatus();
}

// order_by (against `allowed`) and the page into `f`.
template <typename Request, typename Filter>
absl::Status SetOrderAndPage(const Request& request, const std::vector<std::string>& allowed,
                             Filter* f) {
  auto order = ParseOrderBy(request.order_by(), allowed);
  if (!order.ok()) return order.status();
  f->order_by = *std::move(order);
  return SetPage(request, f);
}

std::vector<std::string> Vec(const google::protobuf::RepeatedPtrField<std::string>& r) {
  return {r.begin(), r.end()};
}

// The five selector fields, which RevokeGrantsRequest, RevokeAppealsRequest
// and its RevokeFilter body share.
template <typename Message>
GrantSelector SelectorFields(const Message& m) {
  GrantSelector s;
  s.account_ids = Vec(m.account_ids());
  s.provider_types = Vec(m.provider_types());
  s.provider_urns = Vec(m.provider_urns());
  s.resource_types = Vec(m.resource_types());
  s.resource_urns = Vec(m.resource_urns());
  return s;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> AppealStatusesOf(
    const google::protobuf::RepeatedPtrField<std::string>& statuses) {
  std::vector<std::string> out;
  for (const std::string& s : statuses) {
    std::string v = s;
    if (v == "active") v = "approved";
    if (v == "cancelled") v = "canceled";
    if (v == "terminated") {
      return absl::InvalidArgumentError(
          "statuses: \"terminated\" is no longer an appeal status (Guardian's are pending, "
          "approved, rejected, canceled): a revoked or replaced appeal stays \"approved\" and "
          "its grant becomes inactive; list those with GET /grants?statuses=inactive");
    }
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(std::move(v));
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, bool>>> ParseOrderBy(
    const google::protobuf::RepeatedPtrField<std::string>& order_by,
    const std::vector<std::string>& allowed) {
  std::vector<std::pair<std::string, bool>> out;
  for (const std::string& entry : order_by) {
    for (absl::string_view part : absl::StrSplit(entry, ',', absl::SkipEmpty())) {
      std::vector<std::string> fd = absl::StrSplit(part, ':');
      std::string field = fd[0];
      bool desc = false;
      if (fd.size() > 2 || (fd.size() == 2 && fd[1] != "asc" && fd[1] != "desc")) {
        return absl::InvalidArgumentError(
            absl::StrCat("order_by: \"", part, "\" must be <field>:<asc|desc>"));
      }
      if (fd.size() == 2) desc = fd[1] == "desc";
      if (std::find(allowed.begin(), allowed.end(), field) == allowed.end()) {
        return absl::InvalidArgumentError(absl::StrCat("order_by: unknown field \"", field,
                                                       "\" (allowed: ", absl::StrJoin(allowed, ", "),
                                                       ")"));
      }
      out.push_back({field, desc});
    }
  }
  return out;
}

absl::StatusOr<AppealFilter> AppealFilterOf(const pb::ListAppealsRequest& request) {
  AppealFilter f;
  f.account_ids = Vec(request.account_ids());
  if (!request.account_id().empty()) f.account_ids.push_back(request.account_id());
  auto statuses = AppealStatusesOf(request.statuses());
  if (!statuses.ok()) return statuses.status();
  f.statuses = *std::move(statuses);
  f.role = request.role();
  f.provider_types = Vec(request.provider_types());
  f.provider_urns = Vec(request.provider_urns());
  f.resource_types = Vec(request.resource_types());
  f.resource_urns = Vec(request.resource_urns());
  f.created_by = request.created_by();
  auto st = SetOrderAndPage(request, {"created_at", "updated_at", "status", "account_id", "role"},
                            &f);
  if (!st.ok()) return st;
  return f;
}

absl::StatusOr<ApprovalFilter> ApprovalFilterOf(const pb::ListApprovalsRequest& request) {
  ApprovalFilter f;
  f.account_id = request.account_id();
  f.approver = request.created_by();
  f.statuses = Vec(request.statuses());
  auto st = SetOrderAndPage(request, {"created_at", "updated_at", "status", "name"}, &f);
  if (!st.ok()) return st;
  return f;
}

absl::StatusOr<GrantFilter> GrantFilterOf(const pb::ListGrantsRequest& request) {
  GrantFilter f;
  f.q = request.q();
  f.owner = !request.owner().empty() ? request.owner() : request.created_by();
  f.statuses = Vec(request.statuses());
  f.account_ids = Vec(request.account_ids());
  f.account_types = Vec(request.account_types());
  f.resource_ids = Vec(request.resource_ids());
  for (const auto& id : f.resource_ids) {
    if (!IsUuid(id)) {
      return absl::InvalidArgumentError(absl::StrCat("resource_ids: \"", id, "\" is not a UUID"));
    }
  }
  f.roles = Vec(request.roles());
  f.provider_types = Vec(request.provider_types());
  f.provider_urns = Vec(request.provider_urns());
  f.resource_types = Vec(request.resource_types());
  auto st = SetOrderAndPage(
      request, {"created_at", "updated_at", "expiration_date", "account_id", "role", "status"}, &f);
  if (!st.ok()) return st;
  return f;
}

absl::StatusOr<ResourceFilter> ResourceFilterOf(const pb::ListResourcesRequest& request) {
  ResourceFilter filter;
  filter.provider_type = request.provider_type();
  filter.provider_urn = request.provider_urn();
  filter.type = request.type();
  filter.urn = request.urn();
  filter.name = request.name();
  filter.is_deleted = request.is_deleted();
  for (const auto& d : request.details()) {
    auto colon = d.find(':');
    if (colon == std::string::npos || colon == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("details: \"", d, "\" must be path:value (e.g. team.name:data)"));
    }
    std::vector<std::string> path = absl::StrSplit(d.substr(0, colon), '.');
    for (const auto& p : path) {
      if (p.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("details: empty path segment in \"", d, "\""));
      }
    }
    filter.details.push_back({path, d.substr(colon + 1)});
  }
  return filter;
}

GrantSelector GrantSelectorOf(const pb::RevokeGrantsRequest& request) {
  return SelectorFields(request);
}

GrantSelector GrantSelectorOf(const pb::RevokeAppealsRequest& request) {
  GrantSelector s = SelectorFields(request.body());
  GrantSelector query = SelectorFields(request);
  for (auto [field, fallback] :
       {std::pair{&s.account_ids, &query.account_ids},
        std::pair{&s.provider_types, &query.provider_types},
        std::pair{&s.provider_urns, &query.provider_urns},
        std::pair{&s.resource_types, &query.resource_types},
        std::pair{&s.resource_urns, &query.resource_urns}}) {
    if (field->empty()) *field = std::move(*fallback);
  }
  return s;
}

ImportCriteria ImportCriteriaOf(const pb::ImportGrantsRequest& request) {
  ImportCriteria c;
  c.provider_id = request.id();
  c.resource_ids = Vec(request.resource_ids());
  c.resource_types = Vec(request.resource_types());
  c.resource_urns = Vec(request.resource_urns());
  return c;
}

}  // namespace sluice::access
