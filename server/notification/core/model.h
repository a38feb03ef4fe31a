// Domain types of the notification API. Free-form JSON (configurations,
// data, payloads) is nlohmann::json; times are absl::Time.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_MODEL_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace sluice::notification {

using Labels = std::map<std::string, std::string>;

// Where messages go. `configurations` holds secrets encrypted ("v1:…") when
// it comes from or goes to the repository.
struct Receiver {
  uint64_t id = 0;
  std::string name;  // ^[A-Za-z0-9_.-]+$
  std::string type;  // a registered receiver type
  Labels labels;     // user labels (the implicit id/type labels are added on output)
  nlohmann::json configurations = nlohmann::json::object();
  // Who may send to it (security review round 2, F-M1): identities, or
  // "group:<name>" for the members of a group. Empty: whoever may send
  // notifications at all. Notification admins and the system sender are
  // never narrowed (see notify.h).
  std::vector<std::string> allowed_senders;
  // The receiver whose credentials a child type sends with (Siren's
  // parent_id: slack_channel under slack, lark_channel under lark); 0: none.
  uint64_t parent_id = 0;
  absl::Time created_at;
  absl::Time updated_at;
};

// A receiver of a subscription with its configuration override.
struct SubscriptionReceiver {
  uint64_t id = 0;
  nlohmann::json configuration = nlohmann::json::object();
  // The relation's labels (Siren's subscription_receiver_labels).
  Labels labels;
  // When the relation was added / last changed (set by the store).
  absl::Time created_at, updated_at;
};

// Routes notifications whose labels contain `match` to `receivers`.
struct Subscription {
  uint64_t id = 0;
  std::string urn;         // unique, ^[A-Za-z0-9_-]+$
  uint64_t namespace_id = 0;  // 0 = none
  std::vector<SubscriptionReceiver> receivers;
  Labels match;
  // Who may reach its receivers through it; the same rules as
  // Receiver::allowed_senders (a receiver's own list applies as well).
  std::vector<std::string> allowed_senders;
  // Free-form JSON object (Siren's subscription metadata), filterable by
  // containment; and who created / last updated it, as the client said
  // (Siren's created_by / updated_by; the audit log keeps the caller).
  nlohmann::json metadata = nlohmann::json::object();
  std::string created_by, updated_by;
  absl::Time created_at;
  absl::Time updated_at;
};

// A template variable declaration.
struct TemplateVariable {
  std::string name, type, default_value, description;
};

// A template rendering a receiver's payload: Mustache rendering JSON
// (engine "mustache"), or Siren's Go text/template with a YAML body (engine
// "go"; go_template.h).
struct Template {
  std::string name;  // ^[A-Za-z0-9_-]+$
  std::string body;
  std::string engine = "mustache";  // mustache | go (| go-content: built-ins only)
  std::vector<std::string> tags;
  std::vector<TemplateVariable> variables;
  absl::Time created_at;
  absl::Time updated_at;
  bool builtin = false;
};

// One receiver a notification is delivered to.
struct Delivery {
  uint64_t receiver_id = 0;
  std::string receiver_type;
  nlohmann::json config_override = nlohmann::json::object();  // secrets encrypted
};

// An accepted send request: rendered per receiver at delivery time.
struct Notification {
  uint64_t id = 0;
  std::string idempotency_key;  // "" = none
  std::string template_name;    // never empty: resolved at accept time
  nlohmann::json data = nlohmann::json::object();
  Labels labels;
  std::string source = "api";  // api | alert
  // Who sent it: the caller's identity, or "alertmanager:<type>/<id>" for an
  // alert hook post. Only the sender and notification admins read its messages.
  std::string created_by;
  absl::Time created_at;
};

// Message states (the `status` column).
inline constexpr char kEnqueued[] = "enqueued";    // waiting (first try or backoff)
inline constexpr char kPending[] = "pending";      // claimed by a worker
inline constexpr char kPublished[] = "published";  // the receiver accepted it
inline constexpr char kFailed[] = "failed";        // permanent error or tries exhausted
inline constexpr char kExpired[] = "expired";      // past expire_at before delivery

// One delivery of a notification to one receiver.
struct Message {
  uint64_t id = 0;
  uint64_t notification_id = 0;
  uint64_t receiver_id = 0;
  std::string receiver_type;
  std::string status;
  int try_count = 0;
  int max_tries = 3;
  std::string last_error;
  absl::Time created_at, updated_at, expire_at, next_attempt_at;
};

// A message claimed for delivery with everything needed to send it.
struct ClaimedMessage {
  Message message;
  // The W3C traceparent of the request that created the notification ("":
  // none); the delivery continues that trace.
  std::string traceparent;
  std::string lease;  // this claim's lease token: recording an outcome needs it
  bool receiver_exists = false;
  nlohmann::json receiver_config;  // the receiver's configurations, secrets encrypted
  nlohmann::json config_override;  // the subscription's override, secrets encrypted
  // The receiver's parent (Receiver::parent_id; 0: none), its type ("" when
  // it no longer exists) and configurations (secrets encrypted).
  uint64_t parent_id = 0;
  std::string parent_type;
  nlohmann::json parent_config;
  std::string template_name;
  std::optional<Template> user_template;  // the stored template, when not built in
  nlohmann::json data;
  // The notification's labels and source ("api", "alert", ...): the default
  // template sends them with the data, as Siren does.
  nlohmann::json labels = nlohmann::json::object();
  std::string source;
};

// One alert of an Alertmanager webhook.
struct Alert {
  uint64_t id = 0;
  std::string provider_type, provider_id;
  std::string status;  // firing | resolved
  Labels labels, annotations;
  absl::Time starts_at = absl::InfinitePast();
  std::optional<absl::Time> ends_at;
  std::string generator_url, fingerprint, group_key;
  uint64_t notification_id = 0;
  absl::Time created_at;
  // Siren's alert fields (core/alert.Alert), derived by DeriveSirenFields as
  // Siren's cortex plugin does (TransformToAlerts).
  uint64_t namespace_id = 0;  // the hook's {namespace_id} (0: none)
  std::string resource_name;  // annotation "resource"
  std::string metric_name;    // annotation "metric_name"
  std::string metric_value;   // annotation "metric_value"
  std::string severity;       // label "severity"; "resolved" once resolved
  std::string rule;           // annotation "template"
  absl::Time triggered_at = absl::InfinitePast();  // startsAt
  // "" | "partial" | "total" (see silence.h), and the silences that applied.
  std::string silence_status;
  std::vector<std::string> silence_ids;
};

// ListAlerts filters (Siren's core/alert.Filter plus Sluice's provider
// type). Empty/zero: any.
struct AlertFilter {
  std::string provider_type, provider_id;  // required
  uint64_t namespace_id = 0;
  std::string resource_name;
  std::string silence_id;  // alerts this silence applied to
  // Bounds on triggered_at (startsAt), inclusive.
  absl::Time from = absl::InfinitePast();
  absl::Time to = absl::InfiniteFuture();
};

// An Alertmanager webhook payload (version 4).
struct AlertGroup {
  std::string provider_type, provider_id;
  uint64_t namespace_id = 0;  // the hook's {namespace_id} (0: none)
  std::string version, group_key, receiver, status, external_url;
  Labels group_labels, common_labels, common_annotations;
  std::vector<Alert> alerts;
  nlohmann::json raw;  // the payload as JSON (the http/file alert template sends it)
};

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_MODEL_H_
