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
absl::Status SetPage(const Request& request, int max_page_size, Filter* f) {
  auto page = ParseListPage(request.size(), request.offset(), max_page_size);
  if (!page.ok()) return page.status();
  f->size = page->size;
  f->offset = page->offset;
  return absl::OkStatus();
}

// order_by (against `allowed`) and the page into `f`.
template <typename Request, typename Filter>
absl::Status SetOrderAndPage(const Request& request, const std::vector<std::string>& allowed,
                             int max_page_size, Filter* f) {
  auto order = ParseOrderBy(request.order_by(), allowed);
  if (!order.ok()) return order.status();
  f->order_by = *std::move(order);
  return SetPage(request, max_page_size, f);
}

int64_t MicrosOf(const google::protobuf::Timestamp& ts) {
  return ts.seconds() * 1000000 + ts.nanos() / 1000;
}

// start_time/end_time (Guardian: created_at BETWEEN, both inclusive).
template <typename Request>
absl::StatusOr<TimeRange> RangeOf(const Request& request) {
  TimeRange r;
  if (request.has_start_time()) r.start_micros = MicrosOf(request.start_time());
  if (request.has_end_time()) r.end_micros = MicrosOf(request.end_time());
  if (r.start_micros != 0 && r.end_micros != 0 && r.end_micros < r.start_micros) {
    return absl::InvalidArgumentError("end_time: before start_time");
  }
  return r;
}

// InvalidArgument naming `field` for an entry that is not a UUID.
absl::Status RequireUuids(const std::vector<std::string>& ids, const char* field) {
  for (const auto& id : ids) {
    if (!IsUuid(id)) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": \"", id, "\" is not a UUID"));
    }
  }
  return absl::OkStatus();
}

// Guardian's rule (utils.go applyLikeAndInFilter): contains excludes
// starts_with/ends_with, and likewise for the not_ forms.
absl::Status CheckMatch(const StringMatch& m, const std::string& field) {
  if (!m.contains.empty() && (!m.starts_with.empty() || !m.ends_with.empty())) {
    return absl::InvalidArgumentError(absl::StrCat(field, "_contains: cannot be used together with ",
                                                   field, "_starts_with or ", field, "_ends_with"));
  }
  if (!m.not_contains.empty() && (!m.not_starts_with.empty() || !m.not_ends_with.empty())) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, "_not_contains: cannot be used together with ", field,
                     "_not_starts_with or ", field, "_not_ends_with"));
  }
  return absl::OkStatus();
}

// Guardian's role_* and provider_urn_* matchers of a list request into `f`.
template <typename Request, typename Filter>
absl::Status SetRoleAndProviderUrnMatch(const Request& r, Filter* f) {
  f->role_match = {r.role_starts_with(),     r.role_ends_with(),     r.role_contains(),
                   r.role_not_starts_with(), r.role_not_ends_with(), r.role_not_contains()};
  f->provider_urn_match = {r.provider_urn_starts_with(),     r.provider_urn_ends_with(),
                           r.provider_urn_contains(),        r.provider_urn_not_starts_with(),
                           r.provider_urn_not_ends_with(),   r.provider_urn_not_contains()};
  if (auto st = CheckMatch(f->role_match, "role"); !st.ok()) return st;
  return CheckMatch(f->provider_urn_match, "provider_urn");
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

absl::StatusOr<AppealFilter> AppealFilterOf(const pb::ListAppealsRequest& request,
                                            int max_page_size) {
  AppealFilter f;
  f.ids = Vec(request.ids());
  if (auto st = RequireUuids(f.ids, "ids"); !st.ok()) return st;
  f.account_ids = Vec(request.account_ids());
  if (!request.account_id().empty()) f.account_ids.push_back(request.account_id());
  f.account_types = Vec(request.account_types());
  auto statuses = AppealStatusesOf(request.statuses());
  if (!statuses.ok()) return statuses.status();
  f.statuses = *std::move(statuses);
  f.role = request.role();
  f.roles = Vec(request.roles());
  f.resource_ids = Vec(request.resource_ids());
  if (auto st = RequireUuids(f.resource_ids, "resource_ids"); !st.ok()) return st;
  f.provider_types = Vec(request.provider_types());
  f.provider_urns = Vec(request.provider_urns());
  f.resource_types = Vec(request.resource_types());
  f.resource_urns = Vec(request.resource_urns());
  f.created_by = request.created_by();
  f.q = request.q();
  f.with_approvals = request.with_approvals();
  if (auto st = SetRoleAndProviderUrnMatch(request, &f); !st.ok()) return st;
  auto range = RangeOf(request);
  if (!range.ok()) return range.status();
  f.created = *range;
  auto st = SetOrderAndPage(request, {"created_at", "updated_at", "status", "account_id", "role"},
                            max_page_size, &f);
  if (!st.ok()) return st;
  return f;
}

absl::StatusOr<ApprovalFilter> ApprovalFilterOf(const pb::ListApprovalsRequest& request,
                                                int max_page_size) {
  ApprovalFilter f;
  f.account_id = request.account_id();
  f.account_ids = Vec(request.account_ids());
  f.approver = request.created_by();
  f.statuses = Vec(request.statuses());
  auto appeal_statuses = AppealStatusesOf(request.appeal_statuses());
  if (!appeal_statuses.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("appeal_", appeal_statuses.status().message()));
  }
  f.appeal_statuses = *std::move(appeal_statuses);
  f.account_types = Vec(request.account_types());
  f.resource_types = Vec(request.resource_types());
  f.resource_urns = Vec(request.resource_urns());
  f.provider_types = Vec(request.provider_types());
  f.provider_urns = Vec(request.provider_urns());
  f.roles = Vec(request.roles());
  f.step_names = Vec(request.step_names());
  if (auto st = SetRoleAndProviderUrnMatch(request, &f); !st.ok()) return st;
  f.q = request.q();
  auto range = RangeOf(request);
  if (!range.ok()) return range.status();
  f.created = *range;
  auto st = SetOrderAndPage(request, {"created_at", "updated_at", "status", "name"},
                            max_page_size, &f);
  if (!st.ok()) return st;
  return f;
}

absl::StatusOr<GrantFilter> GrantFilterOf(const pb::ListGrantsRequest& request,
                                          int max_page_size) {
  GrantFilter f;
  f.q = request.q();
  f.owners = Vec(request.owners());
  for (const std::string* o : {&request.owner(), &request.created_by()}) {
    if (!o->empty()) f.owners.push_back(*o);
  }
  f.statuses = Vec(request.statuses());
  f.account_ids = Vec(request.account_ids());
  f.account_types = Vec(request.account_types());
  f.resource_ids = Vec(request.resource_ids());
  if (auto st = RequireUuids(f.resource_ids, "resource_ids"); !st.ok()) return st;
  f.roles = Vec(request.roles());
  f.provider_types = Vec(request.provider_types());
  f.provider_urns = Vec(request.provider_urns());
  f.resource_types = Vec(request.resource_types());
  f.resource_urns = Vec(request.resource_urns());
  f.expiring_in_days = static_cast<int>(std::min<uint32_t>(request.expiring_in_days(), 36500));
  f.with_pending_appeal = request.with_pending_appeal();
  if (auto st = SetRoleAndProviderUrnMatch(request, &f); !st.ok()) return st;
  auto range = RangeOf(request);
  if (!range.ok()) return range.status();
  f.created = *range;
  auto st = SetOrderAndPage(
      request, {"created_at", "updated_at", "expiration_date", "account_id", "role", "status"},
      max_page_size, &f);
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
  filter.ids = Vec(request.ids());
  if (auto st = RequireUuids(filter.ids, "ids"); !st.ok()) return st;
  filter.provider_types = Vec(request.provider_types());
  filter.provider_urns = Vec(request.provider_urns());
  filter.types = Vec(request.types());
  filter.urns = Vec(request.urns());
  filter.q = request.q();
  filter.provider_urn_match = {request.provider_urn_starts_with(), request.provider_urn_ends_with(),
                               request.provider_urn_contains(), request.provider_urn_not_starts_with(),
                               request.provider_urn_not_ends_with(),
                               request.provider_urn_not_contains()};
  filter.urn_match = {request.urn_starts_with(),     request.urn_ends_with(),
                      request.urn_contains(),        request.urn_not_starts_with(),
                      request.urn_not_ends_with(),   request.urn_not_contains()};
  if (auto st = CheckMatch(filter.provider_urn_match, "provider_urn"); !st.ok()) return st;
  if (auto st = CheckMatch(filter.urn_match, "urn"); !st.ok()) return st;
  auto order = ParseOrderBy(request.order_by(), {"updated_at", "created_at", "name", "urn"});
  if (!order.ok()) return order.status();
  filter.order_by = *std::move(order);
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
