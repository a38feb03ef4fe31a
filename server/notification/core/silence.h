// Silences, as Siren's (goto/siren core/silence): a silence stops alerts from
// being notified, either to everyone (type "Matchers": the alert's labels
// include target_expression) or to one subscription's receivers (type
// "subscription": target_id, optionally narrowed by target_expression.rule).
// Expiring a silence is a soft delete (deleted_at); it lets new alerts through.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_SILENCE_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_SILENCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "server/notification/core/model.h"
#include "server/notification/core/repository.h"

namespace sluice::notification {

// Silence types: Siren's core/silence/type.go spells them exactly so.
inline constexpr char kSilenceTypeMatchers[] = "Matchers";
inline constexpr char kSilenceTypeSubscription[] = "subscription";
// The target_expression key of a subscription silence's rule (Siren's
// TargetExpressionRuleKey).
inline constexpr char kSilenceRuleKey[] = "rule";
// Alert silence_status values (Siren's core/silence/status.go): every
// delivery silenced, some silenced, or none ("").
inline constexpr char kSilenceStatusTotal[] = "total";
inline constexpr char kSilenceStatusPartial[] = "partial";

// A silence; the fields mirror Siren's core/silence.Silence.
struct Silence {
  std::string id;             // a UUID, set by the store
  uint64_t namespace_id = 0;  // 0: applies to alerts of every namespace
  std::string type;           // kSilenceTypeMatchers | kSilenceTypeSubscription
  uint64_t target_id = 0;     // subscription id (type subscription)
  // Matchers: label -> value (strings). Subscription: {} or {"rule": "<expr>"}.
  nlohmann::json target_expression = nlohmann::json::object();
  std::string creator;  // the caller who created it
  std::string comment;
  absl::Time created_at;
  std::optional<absl::Time> deleted_at;  // set once expired
};

// ListSilences filters (Siren's core/silence.Filter). Zero/empty: any.
struct SilenceFilter {
  uint64_t namespace_id = 0;
  uint64_t subscription_id = 0;  // target_id
  Labels match;                  // target_expression contains these pairs
  Labels subscription_match;     // target_expression is contained in these labels
  bool include_expired = false;  // Siren lists active silences only
};

// Storage of silences. Errors as in repository.h.
class SilenceRepository {
 public:
  virtual ~SilenceRepository() = default;
  // Stores `s` (id, created_at and deleted_at are set by the store) and
  // returns it as stored.
  virtual absl::StatusOr<Silence> Create(const Silence& s) = 0;
  // Silences matching `filter`, oldest first.
  virtual absl::StatusOr<std::vector<Silence>> List(const SilenceFilter& filter) = 0;
  // NotFound for an unknown id (expired silences are found).
  virtual absl::StatusOr<Silence> Get(absl::string_view id) = 0;
  // Sets deleted_at = now on an active silence. NotFound for an unknown id;
  // an expired silence stays as it is (OK).
  virtual absl::Status Expire(absl::string_view id) = 0;
};

// Siren's Silence.Validate, plus checks Siren leaves to runtime:
// InvalidArgument naming the field for an unknown type, a subscription silence
// without target_id, a matchers silence with an empty or non-string-valued
// target_expression, or a rule outside Sluice's expression dialect (see
// common/expr/expr.h) or reading other variables than kSilenceRuleVariables.
// Accepts the type "matchers" in any case and canonicalizes it to Siren's
// spelling in `s`.
absl::Status ValidateSilence(Silence& s);

// The variables a subscription silence's rule may read (Siren evaluates the
// rule against the subscription's receiver: ID, Type, Configuration; Sluice
// adds the alert's Labels and the SubscriptionID).
inline constexpr const char* kSilenceRuleVariables[] = {"ID", "Type", "Configuration", "Labels",
                                                        "SubscriptionID"};

// One delivery an alert would make, with the subscription it comes through.
struct SubscribedDelivery {
  uint64_t subscription_id = 0;
  Delivery delivery;
};

// What the active silences did to an alert's deliveries.
struct SilenceOutcome {
  std::vector<Delivery> deliveries;       // what still goes out, deduplicated
  std::vector<std::string> silence_ids;   // silences that silenced something
  std::string status;                     // "", kSilenceStatusPartial or kSilenceStatusTotal
};

// Applies `silences` (active ones, of any namespace) to the deliveries of an
// alert with `labels` in `namespace_id`: a silence of another non-zero
// namespace is ignored; a Matchers silence whose target_expression is
// contained in `labels` silences every delivery; a subscription silence
// silences the deliveries through subscription target_id whose rule (if any)
// evaluates true (a rule failing to evaluate silences nothing, and is logged).
// The status follows Siren's silence.Status(hasSilenced, hasNonSilenced); an
// alert silenced by a Matchers silence with no delivery at all is "total".
SilenceOutcome ApplySilences(const std::vector<Silence>& silences, uint64_t namespace_id,
                             const Labels& labels, const std::vector<SubscribedDelivery>& routes);

// Create/list/get/expire silences (Siren's core/silence.Service). Callers
// check authorization (notification admins, like other notification changes).
class SilenceService {
 public:
  // `subscriptions` (may be null) checks a subscription silence's target.
  explicit SilenceService(SilenceRepository* repo, SubscriptionRepository* subscriptions = nullptr)
      : repo_(repo), subscriptions_(subscriptions) {}
  // Validates (ValidateSilence) and stores `s` with `creator`; returns the
  // stored silence (id, created_at set). NotFound naming target_id for an
  // unknown subscription.
  absl::StatusOr<Silence> Create(Silence s, absl::string_view creator);
  absl::StatusOr<std::vector<Silence>> List(const SilenceFilter& filter) {
    return repo_->List(filter);
  }
  // InvalidArgument for an empty id; NotFound for an unknown one.
  absl::StatusOr<Silence> Get(absl::string_view id);
  // Soft delete: InvalidArgument for an empty id; NotFound for an unknown one.
  absl::Status Expire(absl::string_view id);

 private:
  SilenceRepository* repo_;
  SubscriptionRepository* subscriptions_;
};

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_SILENCE_H_
