// List requests of the access API translated into the core's filters (as
// the notification API's convert.h does): field validation and the page
// happen here, so the core takes filters, never pb::*Request messages.
#ifndef SLUICE_SERVER_ACCESS_API_FILTERS_H_
#define SLUICE_SERVER_ACCESS_API_FILTERS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/paging.h"
#include "proto/sluice/access/v1beta1/access.pb.h"
#include "proto/sluice/access/v1beta1/appeal.pb.h"
#include "server/access/core/appeal_repositories.h"
#include "server/access/core/grant/grant_service.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

// Parses "<field>:<asc|desc>" entries (each may also hold several, comma
// separated) against `allowed` column names into (column, descending)
// pairs. InvalidArgument naming an unknown field or direction.
absl::StatusOr<std::vector<std::pair<std::string, bool>>> ParseOrderBy(
    const google::protobuf::RepeatedPtrField<std::string>& order_by,
    const std::vector<std::string>& allowed);

// An appeal `statuses` filter in Guardian's values (pending, approved,
// rejected, canceled). The values before the rename stay accepted as
// aliases: "active" → "approved", "cancelled" → "canceled". "terminated"
// (an approved appeal whose grant was revoked or replaced) is
// InvalidArgument naming `statuses` and the new way (the grant's status).
// Other values pass through (they match nothing, as before).
absl::StatusOr<std::vector<std::string>> AppealStatusesOf(
    const google::protobuf::RepeatedPtrField<std::string>& statuses);
// Every list below pages with ParseListPage(size, offset, max_page_size):
// an unset size means up to max_page_size (access.max_page_size).

// GET /appeals filters; `account_id` joins `account_ids`. The caller sets
// visible_to / created_by for non-admins. InvalidArgument: order_by, size,
// offset, statuses (AppealStatusesOf), an ids/resource_ids entry that is not a UUID, end_time before
// start_time, a role_*/provider_urn_* *_contains beside *_starts_with or *_ends_with.
absl::StatusOr<AppealFilter> AppealFilterOf(const pb::ListAppealsRequest& request,
                                            int max_page_size = kMaxPageSize);
// GET /approvals filters; approver = request.created_by (the caller
// overrides it for non-admins); account_id joins account_ids; step_names
// and the role_*/provider_urn_* matchers as Guardian's.
// InvalidArgument: order_by, size, offset, end_time before start_time, the
// matchers as for appeals.
absl::StatusOr<ApprovalFilter> ApprovalFilterOf(const pb::ListApprovalsRequest& request,
                                                int max_page_size = kMaxPageSize);
// GET /grants filters; owners, owner and created_by form one list (any of
// them, as Guardian's grant_repository.go). InvalidArgument: a resource_ids
// entry that is not a UUID, order_by, size, offset, end_time before
// start_time, the role_*/provider_urn_* matchers as for appeals.
absl::StatusOr<GrantFilter> GrantFilterOf(const pb::ListGrantsRequest& request,
                                          int max_page_size = kMaxPageSize);
// GET /resources filters; each `details` entry is "path.to.key:value"; the
// singular provider_type/provider_urn/type/urn join their lists.
// InvalidArgument naming a malformed details entry, an ids entry that is
// not a UUID, an unknown order_by field, or *_contains together with
// *_starts_with/*_ends_with of the same field (Guardian's rule).
absl::StatusOr<ResourceFilter> ResourceFilterOf(const pb::ListResourcesRequest& request);
// The grants of a bulk revoke (POST /grants/revoke). Which filters are
// required is the core's rule (RevokeGrants / RevokeMany).
GrantSelector GrantSelectorOf(const pb::RevokeGrantsRequest& request);
// PUT /appeals/revoke: the JSON body's filters win over the query
// parameters, field by field.
GrantSelector GrantSelectorOf(const pb::RevokeAppealsRequest& request);
// POST /providers/{id}/import: the provider and the resources to look at.
ImportCriteria ImportCriteriaOf(const pb::ImportGrantsRequest& request);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_API_FILTERS_H_
