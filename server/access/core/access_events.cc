#include "server/access/core/access_events.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

// Adds `email` unless empty, not an email (a service account id) or present.
void AddRecipient(std::vector<std::string>* out, const std::string& email) {
  if (email.empty() || !IsEmailAddress(email)) return;
  if (std::find(out->begin(), out->end(), email) == out->end()) out->push_back(email);
}

// Guardian's resource_name: "<name> (<provider type>: <urn>)".
std::string ResourceName(const pb::Resource& r) {
  return absl::StrCat(r.name().empty() ? r.urn() : r.name(), " (", r.provider_type(), ": ",
                      r.urn(), ")");
}

std::map<std::string, std::string> ResourceLabels(const std::string& type, const pb::Resource& r,
                                                  const std::string& role) {
  std::map<std::string, std::string> l{{"event", type}, {"role", role}};
  auto put = [&l](const char* k, const std::string& v) {
    if (!v.empty()) l[k] = v;
  };
  put("provider_type", r.provider_type());
  put("provider_urn", r.provider_urn());
  put("resource_type", r.type());
  put("resource_urn", r.urn());
  return l;
}

std::string Rfc3339(const google::protobuf::Timestamp& ts) {
  return absl::FormatTime(absl::RFC3339_sec, FromTimestamp(ts), absl::UTCTimeZone());
}

// "<id>:<t, unix µs>": the qualifier of an event that can recur (F-L5).
std::string Qualified(const std::string& id, const google::protobuf::Timestamp& t) {
  return absl::StrCat(id, ":", absl::ToUnixMicros(FromTimestamp(t)));
}

AccessEvent AppealEvent(const std::string& type, const pb::Appeal& a) {
  AccessEvent e;
  e.type = type;
  e.id = a.id().empty() ? "" : absl::StrCat(type, ":", a.id());
  e.labels = ResourceLabels(type, a.resource(), a.role());
  e.variables = {{"event", type},
                 {"appeal_id", a.id()},
                 {"resource_name", ResourceName(a.resource())},
                 {"resource_id", a.resource_id()},
                 {"role", a.role()},
                 {"account_id", a.account_id()},
                 {"account_type", a.account_type()},
                 {"requestor", a.created_by()},
                 {"created_by", a.created_by()},
                 {"on_behalf", a.created_by() != a.account_id()},
                 {"status", a.status()}};
  return e;
}

// The first pending step, or nullptr.
const pb::Approval* PendingStep(const pb::Appeal& a) {
  for (const auto& p : a.approvals()) {
    if (p.status() == "pending") return &p;
  }
  return nullptr;
}

AccessEvent ToApprovers(AccessEvent e, const pb::Approval& step) {
  for (const auto& email : step.approvers()) AddRecipient(&e.recipients, email);
  e.variables["step"] = step.name();
  e.variables["approvers"] = std::vector<std::string>(step.approvers().begin(),
                                                      step.approvers().end());
  return e;
}

AccessEvent ToRequester(AccessEvent e, const pb::Appeal& a) {
  AddRecipient(&e.recipients, a.account_id());
  AddRecipient(&e.recipients, a.created_by());
  return e;
}

AccessEvent GrantEvent(const std::string& type, const pb::Grant& g) {
  AccessEvent e;
  e.type = type;
  e.id = absl::StrCat(type, ":", g.id());
  e.labels = ResourceLabels(type, g.resource(), g.role());
  e.variables = {{"event", type},
                 {"grant_id", g.id()},
                 {"appeal_id", g.appeal_id()},
                 {"resource_name", ResourceName(g.resource())},
                 {"resource_id", g.resource_id()},
                 {"role", g.role()},
                 {"account_id", g.account_id()},
                 {"account_type", g.account_type()},
                 {"requestor", g.owner()},
                 {"owner", g.owner()}};
  if (g.has_expiration_date()) {
    e.variables["expiration_date"] = Rfc3339(g.expiration_date());
    // Guardian's expiration_date_formatted ("Jan 02, 2006 15:04:05 UTC").
    e.variables["expiration_date_formatted"] =
        absl::FormatTime("%b %d, %Y %H:%M:%S UTC", FromTimestamp(g.expiration_date()),
                         absl::UTCTimeZone());
  }
  AddRecipient(&e.recipients, g.account_id());
  AddRecipient(&e.recipients, g.owner());
  return e;
}

// One default body: a sentence for people (Guardian's wording) as Slack
// text, and for other receivers the event name, the same text and all data.
std::string Body(const std::string& text) {
  return absl::StrCat(R"({"text": ")", text,
                      R"("{{^receiver.slack}}, "event": "{{event}}", "data": {{{_json}}}{{/receiver.slack}}})");
}

}  // namespace

const std::vector<std::string>& AllEventTypes() {
  static const std::vector<std::string>* types = new std::vector<std::string>{
      kEventAppealCreated, kEventStepApproved,  kEventAppealApproved, kEventAppealRejected,
      kEventGrantRevoked,  kEventGrantRestored, kEventOwnerChanged,   kEventGrantExpiring,
      kEventPendingReminder};
  return *types;
}

std::string EventTemplateName(const std::string& type) {
  return absl::StrCat("access-", absl::StrReplaceAll(type, {{".", "-"}, {"_", "-"}}));
}

std::string DefaultEventTemplateBody(const std::string& type) {
  if (type == kEventAppealCreated) {
    return Body("You have an appeal created by *{{requestor}}* requesting access to "
                "*{{resource_name}}* with role *{{role}}*.\\n Appeal ID: *{{appeal_id}}*");
  }
  if (type == kEventStepApproved) {
    return Body("Step *{{approved_step}}* of the appeal by *{{requestor}}* for *{{resource_name}}* "
                "with role *{{role}}* was approved by {{actor}}; step *{{step}}* awaits your "
                "approval.\\n Appeal ID: *{{appeal_id}}*");
  }
  if (type == kEventAppealApproved) {
    return Body("Your appeal to *{{resource_name}}* with role *{{role}}*{{#on_behalf}} created by "
                "*{{requestor}}* for *{{account_id}}*{{/on_behalf}} has been approved");
  }
  if (type == kEventAppealRejected) {
    return Body("Your appeal to *{{resource_name}}* with role *{{role}}* has been rejected by "
                "{{actor}}{{#reason}}: {{reason}}{{/reason}}");
  }
  if (type == kEventGrantRevoked) {
    return Body("Your access to *{{resource_name}}* with role *{{role}}* has been revoked by "
                "{{revoked_by}}{{#reason}}: {{reason}}{{/reason}}");
  }
  if (type == kEventGrantRestored) {
    return Body("Your access to *{{resource_name}}* with role *{{role}}* has been restored by "
                "{{restored_by}}{{#reason}}: {{reason}}{{/reason}}{{#expiration_date_formatted}}. "
                "It will expire at *{{expiration_date_formatted}}*{{/expiration_date_formatted}}");
  }
  if (type == kEventOwnerChanged) {
    return Body("Owner of grant `{{grant_id}}` has been changed from `{{previous_owner}}` to "
                "`{{new_owner}}`");
  }
  if (type == kEventGrantExpiring) {
    return Body("Your access *{{account_id}}* to *{{resource_name}}* with role *{{role}}* will "
                "expire at *{{expiration_date_formatted}}*. Extend the access if it's still needed");
  }
  if (type == kEventPendingReminder) {
    return Body("The appeal created by *{{requestor}}* requesting access to *{{resource_name}}* "
                "with role *{{role}}* has waited since {{created_at}} for your approval of step "
                "*{{step}}*.\\n Appeal ID: *{{appeal_id}}*");
  }
  return Body("{{event}}");
}

nlohmann::json ToPayload(const AccessEvent& e) {
  return {{"recipients", e.recipients}, {"labels", e.labels}, {"variables", e.variables}};
}

AccessEvent FromPayload(const std::string& id, const std::string& type, const nlohmann::json& p) {
  AccessEvent e;
  e.id = id;
  e.type = type;
  if (!p.is_object()) return e;
  if (p.contains("recipients") && p["recipients"].is_array()) {
    for (const auto& r : p["recipients"]) {
      if (r.is_string()) e.recipients.push_back(r.get<std::string>());
    }
  }
  if (p.contains("labels") && p["labels"].is_object()) {
    for (const auto& [k, v] : p["labels"].items()) {
      if (v.is_string()) e.labels[k] = v.get<std::string>();
    }
  }
  if (p.contains("variables") && p["variables"].is_object()) e.variables = p["variables"];
  return e;
}

std::vector<AccessEvent> EventPolicy::Filter(std::vector<AccessEvent> events) const {
  std::vector<AccessEvent> out;
  for (AccessEvent& e : events) {
    if (e.recipients.empty() || disabled.count(e.type)) continue;
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<AccessEvent> CreatedEvents(const pb::Appeal& appeal) {
  if (appeal.status() == "pending") {
    const pb::Approval* step = PendingStep(appeal);
    if (step == nullptr) return {};
    return {ToApprovers(AppealEvent(kEventAppealCreated, appeal), *step)};
  }
  if (appeal.status() == "approved") return {ToRequester(AppealEvent(kEventAppealApproved, appeal), appeal)};
  if (appeal.status() == "rejected") {
    return {ToRequester(AppealEvent(kEventAppealRejected, appeal), appeal)};
  }
  return {};
}

std::vector<AccessEvent> ActionEvents(const pb::Appeal& appeal, const std::string& step,
                                      const std::string& actor, const std::string& reason) {
  AccessEvent e;
  if (appeal.status() == "pending") {
    const pb::Approval* next = PendingStep(appeal);
    if (next == nullptr) return {};
    e = ToApprovers(AppealEvent(kEventStepApproved, appeal), *next);
    e.id = absl::StrCat(e.id, ":", step);
    e.variables["approved_step"] = step;
  } else if (appeal.status() == "approved") {
    e = ToRequester(AppealEvent(kEventAppealApproved, appeal), appeal);
  } else if (appeal.status() == "rejected") {
    e = ToRequester(AppealEvent(kEventAppealRejected, appeal), appeal);
  } else {
    return {};
  }
  e.variables["actor"] = actor;
  e.variables["reason"] = reason;
  return {std::move(e)};
}

AccessEvent RevokedEvent(const pb::Grant& grant) {
  AccessEvent e = GrantEvent(kEventGrantRevoked, grant);
  e.id = Qualified(e.id, grant.revoked_at());
  e.variables["revoked_by"] = grant.revoked_by();
  e.variables["reason"] = grant.revoke_reason();
  return e;
}

AccessEvent RestoredEvent(const pb::Grant& grant) {
  AccessEvent e = GrantEvent(kEventGrantRestored, grant);
  e.id = Qualified(e.id, grant.restored_at());
  e.variables["restored_by"] = grant.restored_by();
  e.variables["reason"] = grant.restore_reason();
  e.variables["revoked_by"] = grant.revoked_by();
  e.variables["permanent"] = grant.is_permanent();
  return e;
}

AccessEvent OwnerChangedEvent(const pb::Grant& grant, const std::string& previous_owner,
                              const std::string& actor) {
  AccessEvent e = GrantEvent(kEventOwnerChanged, grant);
  e.id = absl::StrCat(e.id, ":", absl::ToUnixMicros(FromTimestamp(grant.updated_at())));
  e.recipients.clear();
  AddRecipient(&e.recipients, previous_owner);
  AddRecipient(&e.recipients, grant.owner());
  e.variables["previous_owner"] = previous_owner;
  e.variables["new_owner"] = grant.owner();
  e.variables["actor"] = actor;
  return e;
}

AccessEvent ExpiringEvent(const pb::Grant& grant, int days) {
  AccessEvent e = GrantEvent(kEventGrantExpiring, grant);
  e.id = Qualified(absl::StrCat(e.id, ":", days), grant.expiration_date());
  e.variables["days"] = days;
  return e;
}

AccessEvent PendingReminderEvent(const pb::Appeal& appeal, const std::string& day) {
  AccessEvent e = AppealEvent(kEventPendingReminder, appeal);
  e.id = absl::StrCat(e.id, ":", day);
  e.variables["created_at"] = Rfc3339(appeal.created_at());
  if (const pb::Approval* step = PendingStep(appeal)) e = ToApprovers(std::move(e), *step);
  return e;
}

int ExpiringThreshold(absl::Time expiration, absl::Time now, const std::vector<int>& thresholds) {
  if (expiration <= now) return 0;
  int best = 0;
  for (int d : thresholds) {
    if (d > 0 && expiration <= now + absl::Hours(24) * d && (best == 0 || d < best)) best = d;
  }
  return best;
}

}  // namespace sluice::access
