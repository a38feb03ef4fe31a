// Approval summaries (issue 28): counts of approvals grouped by fields, as
// Guardian's GenerateApprovalSummaries (api/handler/v1beta1/approval.go
// listApprovalsSummaries, internal/store/postgres/utils.go
// generateGroupSummaries): per summary item, the approvals matching its
// filters, grouped by its group_bys, with a count per group.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/access/core/approval/approval_service.h"

namespace sluice::access {
namespace {

// Guardian's group keys "<entity>.<column>" (entities approval, appeal,
// resource) that Sluice supports, and the column each names.
const std::map<std::string, std::string>& GroupColumns() {
  static const auto* columns = new std::map<std::string, std::string>{
      {"approval.status", "p.status"},          {"approval.name", "p.name"},
      {"approval.actor", "p.actor"},            {"appeal.status", "a.status"},
      {"appeal.role", "a.role"},                {"appeal.account_id", "a.account_id"},
      {"appeal.account_type", "a.account_type"}, {"appeal.created_by", "a.created_by"},
      {"appeal.policy_id", "a.policy_id"},      {"resource.provider_type", "r.provider_type"},
      {"resource.provider_urn", "r.provider_urn"}, {"resource.type", "r.type"},
      {"resource.urn", "r.urn"},                {"resource.name", "r.name"},
  };
  return *columns;
}

// A filter value: a string or a list of strings.
absl::StatusOr<std::vector<std::string>> Strings(const google::protobuf::Value& v,
                                                 const std::string& field) {
  if (v.has_string_value()) return std::vector<std::string>{v.string_value()};
  if (v.has_list_value()) {
    std::vector<std::string> out;
    for (const auto& e : v.list_value().values()) {
      if (!e.has_string_value()) {
        return absl::InvalidArgumentError(absl::StrCat(field, ": a list of strings is expected"));
      }
      out.push_back(e.string_value());
    }
    return out;
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ": a string or a list of strings is expected"));
}

// The query of one summary item. InvalidArgument naming the filter or
// group_by Sluice does not support.
absl::StatusOr<ApprovalSummaryQuery> QueryOf(const std::string& key,
                                             const pb::SummaryParameters& params,
                                             const std::string& approver) {
  ApprovalSummaryQuery q;
  const std::string prefix = absl::StrCat("summary_items.", key, ".");
  std::map<std::string, std::vector<std::string>*> lists = {
      {"statuses", &q.statuses},           {"appeal_statuses", &q.appeal_statuses},
      {"account_ids", &q.account_ids},     {"account_types", &q.account_types},
      {"resource_types", &q.resource_types}, {"resource_urns", &q.resource_urns},
      {"provider_types", &q.provider_types}, {"provider_urns", &q.provider_urns},
      {"roles", &q.roles},                 {"step_names", &q.step_names},
      {"account_id", &q.account_ids},      {"created_by", &q.approvers},
  };
  for (const auto& [name, value] : params.filters()) {
    const std::string field = absl::StrCat(prefix, "filters.", name);
    auto it = lists.find(name);
    if (it == lists.end()) {
      std::vector<std::string> known;
      for (const auto& [k, unused] : lists) known.push_back(k);
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": not a filter Sluice supports (", absl::StrJoin(known, ", "), ")"));
    }
    auto values = Strings(value, field);
    if (!values.ok()) return values.status();
    it->second->insert(it->second->end(), values->begin(), values->end());
  }
  // The caller's own approvals (GenerateUserApprovalSummaries and
  // non-admins) whatever created_by says.
  if (!approver.empty()) q.approvers = {approver};
  if (params.group_bys().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, "group_bys: required"));
  }
  for (int i = 0; i < params.group_bys_size(); ++i) {
    auto it = GroupColumns().find(params.group_bys(i));
    if (it == GroupColumns().end()) {
      std::vector<std::string> known;
      for (const auto& [k, unused] : GroupColumns()) known.push_back(k);
      return absl::InvalidArgumentError(absl::StrCat(
          prefix, "group_bys[", i, "]: \"", params.group_bys(i),
          "\" is not a group Sluice supports (", absl::StrJoin(known, ", "), ")"));
    }
    q.group_columns.push_back(it->second);
  }
  return q;
}

}  // namespace

absl::StatusOr<google::protobuf::Map<std::string, pb::SummaryResult>>
ApprovalService::SummarizeApprovals(
    const google::protobuf::Map<std::string, pb::SummaryParameters>& items,
    const std::string& approver) {
  if (items.size() > kMaxSummaryItems) {
    return absl::InvalidArgumentError(absl::StrCat("summary_items: at most ", kMaxSummaryItems,
                                                   ", got ", items.size()));
  }
  google::protobuf::Map<std::string, pb::SummaryResult> out;
  for (const auto& [key, params] : items) {
    auto query = QueryOf(key, params, approver);
    if (!query.ok()) return query.status();
    auto groups = appeals_->SummarizeApprovals(*query);
    if (!groups.ok()) return groups.status();
    pb::SummaryResult& result = out[key];
    *result.mutable_applied_parameters() = params;
    int total = 0;
    for (const auto& [values, count] : *groups) {
      pb::SummaryResult::Group* g = result.add_groups();
      for (int i = 0; i < params.group_bys_size() && i < static_cast<int>(values.size()); ++i) {
        (*g->mutable_group_fields())[params.group_bys(i)].set_string_value(values[i]);
      }
      g->set_count(count);
      total += count;
    }
    // Guardian: groups_count sums the groups' counts, and count (deprecated) equals it.
    result.set_groups_count(total);
    result.set_count(total);
  }
  return out;
}

}  // namespace sluice::access
