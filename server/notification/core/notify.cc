#include "server/notification/core/notify.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "server/notification/core/go_template.h"
#include "server/notification/core/labels.h"
#include "server/notification/core/template_engine.h"
#include "spdlog/spdlog.h"

namespace sluice::notification {

namespace {

// The system sender's templates: the access events' (access-*) and the
// built-in alert ones (system-*), but not the default template.
bool ReservedTemplate(absl::string_view name) {
  if (name.empty() || name == kDefaultTemplate) return false;
  return absl::StartsWith(name, "access-") || absl::StartsWith(name, "system-");
}

std::string SubscriptionName(const Subscription& s) {
  return absl::StrCat("subscription ", s.urn.empty() ? absl::StrCat(s.id) : s.urn);
}

std::string ReceiverName(const Receiver& r) {
  return absl::StrCat("receiver ", r.id, r.name.empty() ? "" : absl::StrCat(" (", r.name, ")"));
}

absl::Status NotAdmitted(const Sender& sender, const std::string& what) {
  return absl::PermissionDeniedError(absl::StrCat(
      sender.identity, " may not send to ", what,
      ": not in its allowed_senders (notification admins always may)"));
}

}  // namespace

bool AllowedSendersAdmit(const std::vector<std::string>& list, const Sender& sender) {
  if (list.empty()) return true;
  for (const std::string& entry : list) {
    if (entry == sender.identity) return true;
    if (absl::StartsWith(entry, kGroupEntryPrefix)) {
      absl::string_view group = absl::string_view(entry).substr(std::strlen(kGroupEntryPrefix));
      for (const std::string& g : sender.groups) {
        if (g == group) return true;
      }
    }
  }
  return false;
}

absl::Status ValidateAllowedSenders(const std::vector<std::string>& list, absl::string_view field) {
  if (list.size() > 1000) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": at most 1000 entries"));
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string& e = list[i];
    std::string where = absl::StrCat(field, "[", i, "]");
    if (e.empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": must not be empty"));
    if (e == kAnySender) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": \"*\" is not allowed here (an empty list already admits every sender)"));
    }
    for (unsigned char c : e) {
      if (c <= 0x20 || c == 0x7f) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": must not contain spaces or control characters"));
      }
    }
    if (e == kGroupEntryPrefix) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": \"group:\" needs a group name"));
    }
  }
  return absl::OkStatus();
}

absl::Status NotificationService::CheckSender(const NotificationRequest& req,
                                              const Sender& sender) const {
  if (sender.system) return absl::OkStatus();
  if (absl::StartsWith(sender.identity, "system:")) {
    return absl::PermissionDeniedError(absl::StrCat(
        "\"", sender.identity, "\" may not send notifications: identities beginning with "
        "\"system:\" are reserved for the server's own modules"));
  }
  if (auto st = CheckSenderRole(sender, "send notifications"); !st.ok()) return st;
  if (ReservedTemplate(req.template_name)) {
    return absl::PermissionDeniedError(absl::StrCat(
        sender.identity, " may not use template \"", req.template_name,
        "\": access-* and system-* templates are reserved for the server's own access events "
        "and alerts"));
  }
  if (req.labels.count(kEventLabel) > 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        sender.identity, " may not set the label \"", kEventLabel,
        "\": it is reserved for the server's own access events"));
  }
  return absl::OkStatus();
}

absl::Status NotificationService::CheckSenderRole(const Sender& sender, absl::string_view what) const {
  if (sender.admin || sender.system) return absl::OkStatus();
  bool listed = senders_.senders.count(kAnySender) > 0 || senders_.senders.count(sender.identity) > 0;
  for (const std::string& g : sender.groups) listed |= senders_.sender_groups.count(g) > 0;
  if (listed) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      sender.identity, " may not ", what, ": notification admins and the identities "
      "and groups of notification.senders / notification.sender_groups only"));
}

absl::Status NotificationService::CheckRender(const Template& t, const Sender& sender) const {
  if (sender.system) return absl::OkStatus();
  if (absl::StartsWith(t.name, "access-") || absl::StartsWith(t.name, "system-")) {
    if (sender.admin) return absl::OkStatus();
    return absl::PermissionDeniedError(absl::StrCat(
        sender.identity, " may not render template \"", t.name,
        "\": access-* and system-* templates render for notification admins only"));
  }
  if (t.engine == kEngineGo || t.engine == kEngineGoContent) {
    return CheckSenderRole(sender, absl::StrCat("render the go template \"", t.name, "\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Delivery>> NotificationService::Subscribed(const Labels& labels,
                                                                      const Sender* narrowed) {
  auto routes = Routes(0, labels, narrowed);
  if (!routes.ok()) return routes.status();
  std::vector<Delivery> out;
  std::set<std::pair<uint64_t, std::string>> seen;
  for (SubscribedDelivery& r : *routes) {
    if (!seen.insert({r.delivery.receiver_id, r.delivery.config_override.dump()}).second) continue;
    out.push_back(std::move(r.delivery));
  }
  return out;
}

absl::Status NotificationService::CheckReceiverAdmits(const Receiver& r, const Sender& sender,
                                                      absl::string_view through) const {
  if (!AllowedSendersAdmit(r.allowed_senders, sender)) {
    return NotAdmitted(sender, absl::StrCat(ReceiverName(r), through));
  }
  if (r.parent_id == 0) return absl::OkStatus();
  // A slack_channel/lark_channel child sends with its parent's credentials,
  // so the parent's list applies too (security review R3-L4).
  auto parent = receivers_->Get(r.parent_id);
  if (absl::IsNotFound(parent.status())) return absl::OkStatus();  // the send fails on its own
  if (!parent.ok()) return parent.status();
  if (!AllowedSendersAdmit(parent->allowed_senders, sender)) {
    return NotAdmitted(sender, absl::StrCat(ReceiverName(r), through, " with the credentials of its parent ",
                                            ReceiverName(*parent)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SubscribedDelivery>> NotificationService::Routes(
    uint64_t namespace_id, const Labels& labels, const Sender* narrowed) {
  std::vector<SubscribedDelivery> out;
  auto subs = subscriptions_->List(namespace_id, &labels);
  if (!subs.ok()) return subs.status();
  for (const Subscription& s : *subs) {
    if (!LabelsContain(labels, s.match)) continue;  // the store pre-filters; be exact
    if (narrowed != nullptr && !AllowedSendersAdmit(s.allowed_senders, *narrowed)) {
      return NotAdmitted(*narrowed, SubscriptionName(s));
    }
    std::set<std::pair<uint64_t, std::string>> seen;
    for (const SubscriptionReceiver& sr : s.receivers) {
      auto r = receivers_->Get(sr.id);
      if (absl::IsNotFound(r.status())) continue;
      if (!r.ok()) return r.status();
      if (narrowed != nullptr) {
        if (auto st = CheckReceiverAdmits(*r, *narrowed, absl::StrCat(" (through ", SubscriptionName(s), ")"));
            !st.ok()) {
          return st;
        }
      }
      if (!seen.insert({sr.id, sr.configuration.dump()}).second) continue;
      out.push_back(SubscribedDelivery{s.id, Delivery{sr.id, r->type, sr.configuration}});
    }
  }
  return out;
}

absl::StatusOr<uint64_t> NotificationService::Enqueue(const Notification& n,
                                                      const std::vector<Delivery>& deliveries) {
  auto id = notifications_->Create(n, deliveries, policy_.max_tries, absl::Now() + policy_.validity);
  if (id.ok() && wake_) wake_();
  return id;
}

absl::StatusOr<uint64_t> NotificationService::Post(const NotificationRequest& req,
                                                   absl::string_view key,
                                                   const Sender& sender) {
  // Stored as "<caller>\n<key>": neither an HTTP header nor gRPC metadata can
  // hold a newline, so scoped keys never collide. There is always a caller
  // (finding L5: unscoped keys let anonymous clients learn each other's ids).
  const std::string& caller = sender.identity;
  if (caller.empty()) return absl::UnauthenticatedError("a notification needs a sender");
  if (auto st = CheckSender(req, sender); !st.ok()) return st;
  // allowed_senders narrow listed senders only (F-M1).
  const Sender* narrowed = sender.admin || sender.system ? nullptr : &sender;
  std::string idempotency_key = key.empty() ? "" : absl::StrCat(caller, "\n", key);
  if (!idempotency_key.empty()) {
    auto earlier = notifications_->FindByIdempotencyKey(idempotency_key);
    if (!earlier.ok()) return earlier.status();
    if (*earlier != 0) return *earlier;
  }
  if (!req.data.has_value() || !req.data->is_object()) {
    return absl::InvalidArgumentError("data: is required (an object)");
  }
  if (req.receivers.empty() && req.labels.empty()) {
    return absl::InvalidArgumentError("at least one of receivers and labels is required");
  }
  auto selectors = ParseSelectors(req.receivers);
  if (!selectors.ok()) return selectors.status();

  Notification n;
  n.idempotency_key = std::move(idempotency_key);
  n.created_by = caller;
  n.template_name = req.template_name.empty() ? kDefaultTemplate : req.template_name;
  if (FindBuiltinTemplate(n.template_name) == nullptr) {
    auto t = templates_->Get(n.template_name);
    if (absl::IsNotFound(t.status())) {
      return absl::NotFoundError(absl::StrCat("template \"", n.template_name, "\" not found"));
    }
    if (!t.ok()) return t.status();
  }
  n.data = *req.data;
  n.labels = req.labels;

  std::vector<Delivery> deliveries;
  std::set<uint64_t> direct;
  if (!selectors->empty()) {
    auto matched = receivers_->MatchAny(*selectors);
    if (!matched.ok()) return matched.status();
    for (const Receiver& r : *matched) {
      if (narrowed != nullptr) {
        if (auto st = CheckReceiverAdmits(r, *narrowed, ""); !st.ok()) return st;
      }
      direct.insert(r.id);
      deliveries.push_back(Delivery{r.id, r.type, nlohmann::json::object()});
    }
  }
  if (!req.labels.empty()) {
    auto subscribed = Subscribed(req.labels, narrowed);
    if (!subscribed.ok()) return subscribed.status();
    for (Delivery& d : *subscribed) {
      // A receiver selected directly without override already gets it.
      if (d.config_override.empty() && direct.count(d.receiver_id)) continue;
      deliveries.push_back(std::move(d));
    }
  }
  if (deliveries.empty() && selectors->empty()) {
    // Siren answers InvalidArgument when labels reach no subscription, and
    // NotFound when selectors match no receiver.
    return absl::InvalidArgumentError("labels: no subscription matches them, so nothing was sent");
  }
  if (deliveries.empty()) {
    return absl::NotFoundError("no receiver matched the selectors or labels");
  }
  return Enqueue(n, deliveries);
}

absl::StatusOr<std::vector<Message>> NotificationService::ListMessages(uint64_t notification_id) {
  return notifications_->ListMessages(notification_id);
}

absl::StatusOr<std::vector<Message>> NotificationService::ListMessagesFor(
    uint64_t notification_id, const std::string& caller, bool admin) {
  if (!admin) {
    auto sender = notifications_->GetCreator(notification_id);
    if (!sender.ok()) return sender.status();
    if (*sender != caller) {
      return absl::PermissionDeniedError(absl::StrCat(
          caller, " may not read the messages of notification ", notification_id,
          ": only its sender and notification admins may"));
    }
  }
  return notifications_->ListMessages(notification_id);
}

namespace {

nlohmann::json LabelsJson(const Labels& l) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : l) j[k] = v;
  return j;
}

std::string PagerDutySeverity(const std::string& s) {
  std::string lower = absl::AsciiStrToLower(s);
  if (lower == "critical" || lower == "error" || lower == "warning" || lower == "info") return lower;
  if (lower == "page" || lower == "high") return "critical";
  if (lower == "warn" || lower == "medium") return "warning";
  return lower.empty() ? "critical" : "info";
}

}  // namespace

nlohmann::json AlertTemplateData(const AlertGroup& g) {
  nlohmann::json d = nlohmann::json::object();
  d["status"] = g.status;
  d["status_upper"] = absl::AsciiStrToUpper(g.status);
  d["firing"] = g.status == "firing";
  d["receiver"] = g.receiver;
  d["group_key"] = g.group_key;
  d["external_url"] = g.external_url;
  d["group_labels"] = LabelsJson(g.group_labels);
  d["common_labels"] = LabelsJson(g.common_labels);
  d["common_annotations"] = LabelsJson(g.common_annotations);
  d["source"] = g.provider_type + "/" + g.provider_id;
  int firing = 0;
  nlohmann::json alerts = nlohmann::json::array();
  for (const Alert& a : g.alerts) {
    if (a.status == "firing") ++firing;
    alerts.push_back({{"status", a.status},
                      {"firing", a.status == "firing"},
                      {"labels", LabelsJson(a.labels)},
                      {"annotations", LabelsJson(a.annotations)},
                      {"starts_at", absl::FormatTime(a.starts_at)},
                      {"ends_at", a.ends_at ? absl::FormatTime(*a.ends_at) : ""},
                      {"generator_url", a.generator_url},
                      {"fingerprint", a.fingerprint}});
  }
  d["alerts"] = alerts;
  d["num_firing"] = firing;
  auto pick = [&](const char* key) -> std::string {
    auto it = g.common_labels.find(key);
    if (it != g.common_labels.end()) return it->second;
    if (!g.alerts.empty()) {
      auto jt = g.alerts[0].labels.find(key);
      if (jt != g.alerts[0].labels.end()) return jt->second;
    }
    return "";
  };
  std::string summary;
  if (auto it = g.common_annotations.find("summary"); it != g.common_annotations.end()) {
    summary = it->second;
  } else if (!g.alerts.empty()) {
    auto jt = g.alerts[0].annotations.find("summary");
    if (jt != g.alerts[0].annotations.end()) summary = jt->second;
  }
  std::string name = pick("alertname");
  d["title"] = summary.empty() ? name : absl::StrCat(name, ": ", summary);
  d["severity"] = pick("severity");
  d["pagerduty_severity"] = PagerDutySeverity(pick("severity"));
  d["_payload_json"] = g.raw.dump();
  return d;
}

void DeriveSirenFields(Alert& a) {
  auto annotation = [&](const char* key) -> std::string {
    auto it = a.annotations.find(key);
    return it == a.annotations.end() ? "" : it->second;
  };
  a.resource_name = annotation("resource");
  a.metric_name = annotation("metric_name");
  a.metric_value = annotation("metric_value");
  a.rule = annotation("template");
  auto sev = a.labels.find("severity");
  a.severity = a.status == "resolved" ? "resolved" : (sev == a.labels.end() ? "" : sev->second);
  a.triggered_at = a.starts_at;
}

namespace {

// Siren's cortex plugin drops an alert without a `severity` label or the
// annotations its rules write (plugins/providers/cortex/v1/alert.go
// Validate): resource, template, metric_value, metric_name.
bool SirenAlertIsValid(const Alert& a) {
  return a.labels.count("severity") && a.annotations.count("resource") &&
         a.annotations.count("template") && a.annotations.count("metric_value") &&
         a.annotations.count("metric_name");
}

// Siren's notification data for alerts with one label set (core/alert/
// service.go BuildNotifications): their annotations merged (distinct values
// joined by newlines), status, generator_url and triggered_at of the first,
// the request's count of firing alerts, then the first alert's labels.
nlohmann::json SirenAlertDetails(const std::vector<Alert>& alerts, int firing) {
  const Alert& first = alerts.front();
  nlohmann::json d = nlohmann::json::object();
  std::map<std::string, std::vector<std::string>> merged;
  for (const Alert& a : alerts) {
    for (const auto& [k, v] : a.annotations) {
      auto& values = merged[k];
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
  }
  for (const auto& [k, values] : merged) d[k] = absl::StrJoin(values, "\n");
  d["status"] = first.status;
  d["generator_url"] = first.generator_url;
  d["num_alerts_firing"] = firing;
  d["triggered_at"] = absl::FormatTime(absl::RFC3339_full, first.starts_at, absl::UTCTimeZone());
  for (const auto& [k, v] : first.labels) d[k] = v;
  d["notification_type"] = "alert";
  return d;
}

// What an alert is stored with: where it came from, Siren's fields, the
// notification that carried it and the silences that applied.
void Stamp(const AlertGroup& group, uint64_t notification_id, const SilenceOutcome& outcome,
           Alert& a) {
  a.provider_type = group.provider_type;
  a.provider_id = group.provider_id;
  a.namespace_id = group.namespace_id;
  a.group_key = group.group_key;
  a.notification_id = notification_id;
  DeriveSirenFields(a);
  a.silence_status = outcome.status;
  a.silence_ids = outcome.silence_ids;
}

}  // namespace

absl::StatusOr<uint64_t> AlertService::Route(uint64_t namespace_id, const Labels& match,
                                             nlohmann::json data, const std::string& created_by,
                                             const std::string& what,
                                             const std::vector<Silence>& active,
                                             SilenceOutcome* outcome) {
  auto routes = notifications_->SubscribedRoutes(namespace_id, match);
  if (!routes.ok()) return routes.status();
  *outcome = ApplySilences(active, namespace_id, match, *routes);
  if (!outcome->deliveries.empty()) {
    Notification n;
    n.template_name = kAlertTemplate;
    n.data = std::move(data);
    n.labels = match;
    n.source = "alert";
    n.created_by = created_by;
    return notifications_->Enqueue(n, outcome->deliveries);
  }
  if (!outcome->status.empty()) {
    spdlog::info("{} silenced by {}", what, absl::StrJoin(outcome->silence_ids, ","));
  } else {
    spdlog::info("{} matched no subscription", what);
  }
  return 0;
}

absl::StatusOr<std::vector<Silence>> AlertService::ActiveSilences() {
  if (silences_ == nullptr) return std::vector<Silence>{};
  return silences_->List(SilenceFilter{});
}

absl::StatusOr<uint64_t> AlertService::Ingest(AlertGroup group, std::vector<Alert>* stored) {
  if (group.provider_type == "cortex") return IngestAsSiren(std::move(group), stored);
  Labels match = group.common_labels;
  if (match.empty() && !group.alerts.empty()) {
    match = group.alerts[0].labels;  // intersection of all alerts' labels
    for (const Alert& a : group.alerts) {
      for (auto it = match.begin(); it != match.end();) {
        auto jt = a.labels.find(it->first);
        it = (jt == a.labels.end() || jt->second != it->second) ? match.erase(it) : std::next(it);
      }
    }
  }
  auto active = ActiveSilences();
  if (!active.ok()) return active.status();
  SilenceOutcome outcome;
  auto notification_id = Route(
      group.namespace_id, match, AlertTemplateData(group),
      absl::StrCat("alertmanager:", group.provider_type, "/", group.provider_id),
      absl::StrCat("alert group ", group.group_key, " from ", group.provider_type, "/",
                   group.provider_id, " (", group.alerts.size(), " alerts stored)"),
      *active, &outcome);
  if (!notification_id.ok()) return notification_id.status();
  for (Alert& a : group.alerts) Stamp(group, *notification_id, outcome, a);
  return Store(std::move(group.alerts), *notification_id, stored);
}

absl::StatusOr<uint64_t> AlertService::IngestAsSiren(AlertGroup group,
                                                     std::vector<Alert>* stored) {
  std::vector<Alert> valid;
  for (Alert& a : group.alerts) {
    if (SirenAlertIsValid(a)) {
      valid.push_back(std::move(a));
    } else {
      spdlog::warn(
          "alert {} of group {} from {}/{} dropped as Siren's cortex plugin drops it: it needs a "
          "severity label and the annotations resource, template, metric_name and metric_value",
          a.fingerprint, group.group_key, group.provider_type, group.provider_id);
    }
  }
  group.alerts.clear();  // moved into `valid`, or dropped
  int firing = 0;
  for (const Alert& a : valid) firing += a.status == "firing";
  auto active = ActiveSilences();  // once for every label set below
  if (!active.ok()) return active.status();
  // One notification per distinct label set, routed by those labels.
  std::map<Labels, std::vector<size_t>> by_labels;
  for (size_t i = 0; i < valid.size(); ++i) by_labels[valid[i].labels].push_back(i);
  uint64_t first_id = 0;
  for (const auto& [labels, indexes] : by_labels) {
    AlertGroup sub = group;  // the group's fields, with these alerts only
    sub.common_labels = labels;
    for (size_t i : indexes) sub.alerts.push_back(valid[i]);
    nlohmann::json data = AlertTemplateData(sub);
    data["num_firing"] = firing;
    data["_details_json"] = SirenAlertDetails(sub.alerts, firing).dump();
    SilenceOutcome outcome;
    auto id = Route(group.namespace_id, labels, std::move(data),
                    absl::StrCat("alertmanager:", group.provider_type, "/", group.provider_id),
                    absl::StrCat("alert ", valid[indexes[0]].fingerprint, " of group ",
                                 group.group_key, " from ", group.provider_type, "/",
                                 group.provider_id),
                    *active, &outcome);
    if (!id.ok()) return id.status();
    if (first_id == 0) first_id = *id;
    for (size_t i : indexes) Stamp(group, *id, outcome, valid[i]);
  }
  return Store(std::move(valid), first_id, stored);
}

absl::StatusOr<uint64_t> AlertService::Store(std::vector<Alert> alerts, uint64_t notification_id,
                                             std::vector<Alert>* stored) {
  std::vector<uint64_t> ids;
  if (auto st = alerts_->Insert(alerts, &ids); !st.ok()) return st;
  if (stored != nullptr) {
    for (size_t i = 0; i < alerts.size() && i < ids.size(); ++i) alerts[i].id = ids[i];
    *stored = std::move(alerts);
  }
  return notification_id;
}

absl::StatusOr<std::vector<Alert>> AlertService::List(const AlertFilter& filter, const Page& page,
                                                      int* total) {
  if (filter.provider_type.empty() || filter.provider_id.empty()) {
    return absl::InvalidArgumentError("provider_type and provider_id are required");
  }
  return alerts_->List(filter, page, total);
}

}  // namespace sluice::notification
