// Storage interfaces of the notification core. store/ implements them on
// PostgreSQL; core tests use in-memory fakes. Errors: NotFound for a missing
// row, AlreadyExists for a unique clash, FailedPrecondition for a row still
// referenced, Unavailable/Internal for database trouble.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_REPOSITORY_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_REPOSITORY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/paging.h"
#include "server/notification/core/model.h"

namespace sluice::notification {

class ReceiverRepository {
 public:
  virtual ~ReceiverRepository() = default;
  // A fresh id for Create (so secrets can be sealed to their row first).
  virtual absl::StatusOr<uint64_t> NextId() = 0;
  // Inserts with r.id (from NextId; 0: the store picks one) and returns the
  // id (created_at/updated_at set by the store).
  virtual absl::StatusOr<uint64_t> Create(const Receiver& r, absl::string_view actor) = 0;
  virtual absl::StatusOr<Receiver> Get(uint64_t id) = 0;
  // Receivers whose labels, with the implicit `id` and `type` labels,
  // contain `labels` (empty: all), by id: the page `page` of them (nullptr:
  // all, for internal use), and in `total` (may be null) how many match.
  virtual absl::StatusOr<std::vector<Receiver>> List(const Labels& labels, const Page* page,
                                                     int* total) = 0;
  // Receivers whose labels plus the implicit id/type labels contain all pairs
  // of at least one selector, by id.
  virtual absl::StatusOr<std::vector<Receiver>> MatchAny(const std::vector<Labels>& selectors) = 0;
  // Replaces name, labels, configurations. NotFound when absent.
  virtual absl::Status Update(const Receiver& r, absl::string_view actor) = 0;
  // FailedPrecondition while a subscription references it, or while other
  // receivers name it as their parent_id (they send with its credentials).
  virtual absl::Status Delete(uint64_t id, absl::string_view actor) = 0;
};

// Which subscriptions List returns; every set part must hold.
struct SubscriptionFilter {
  uint64_t namespace_id = 0;  // 0: any
  // Set: subscriptions whose match ⊆ these labels (the subscriptions a
  // notification with these labels reaches; Siren's notification_match).
  std::optional<Labels> notification_match;
  // Subscriptions whose match ⊇ these pairs (Siren's `match`, s.match @>).
  Labels match;
  // Subscriptions whose metadata object contains these string pairs.
  Labels metadata;
  // Subscriptions with a receiver relation to this receiver (0: any) whose
  // labels contain `receiver_labels`.
  uint64_t receiver_id = 0;
  Labels receiver_labels;
};

class SubscriptionRepository {
 public:
  virtual ~SubscriptionRepository() = default;
  // NotFound when a receiver id does not exist; AlreadyExists for the urn.
  virtual absl::StatusOr<uint64_t> Create(const Subscription& s, absl::string_view actor) = 0;
  virtual absl::StatusOr<Subscription> Get(uint64_t id) = 0;
  // The subscriptions passing `filter`, by id; `page` and `total` as in
  // ReceiverRepository::List.
  virtual absl::StatusOr<std::vector<Subscription>> List(const SubscriptionFilter& filter,
                                                         const Page* page = nullptr,
                                                         int* total = nullptr) = 0;
  // namespace_id 0: any. `labels` non-null: subscriptions whose match ⊆
  // labels.
  absl::StatusOr<std::vector<Subscription>> List(uint64_t namespace_id, const Labels* labels,
                                                 const Page* page = nullptr,
                                                 int* total = nullptr) {
    SubscriptionFilter f;
    f.namespace_id = namespace_id;
    if (labels != nullptr) f.notification_match = *labels;
    return List(f, page, total);
  }
  virtual absl::Status Update(const Subscription& s, absl::string_view actor) = 0;
  virtual absl::Status Delete(uint64_t id, absl::string_view actor) = 0;
};

class TemplateRepository {
 public:
  virtual ~TemplateRepository() = default;
  virtual absl::Status Upsert(const Template& t, absl::string_view actor) = 0;
  virtual absl::StatusOr<Template> Get(absl::string_view name) = 0;
  // tag "" = all; by name.
  virtual absl::StatusOr<std::vector<Template>> List(absl::string_view tag) = 0;
  virtual absl::Status Delete(absl::string_view name, absl::string_view actor) = 0;
};

// Which notifications ListNotifications returns; every set part must hold.
struct NotificationFilter {
  std::string created_by;     // "" = any sender
  std::string template_name;  // "" = any
  std::string source;         // "" = any; api | alert
  Labels labels;              // the notification's labels contain these
};

// Accepted notifications and their delivery queue.
class NotificationRepository {
 public:
  virtual ~NotificationRepository() = default;
  // Inserts the notification and one enqueued message per delivery, in one
  // transaction. With a non-empty idempotency key already used, inserts
  // nothing and returns the earlier notification's id.
  virtual absl::StatusOr<uint64_t> Create(const Notification& n,
                                          const std::vector<Delivery>& deliveries, int max_tries,
                                          absl::Time expire_at) = 0;
  // The notification id created earlier with `key`, or 0.
  virtual absl::StatusOr<uint64_t> FindByIdempotencyKey(absl::string_view key) = 0;
  // NotFound for an unknown notification.
  virtual absl::StatusOr<std::vector<Message>> ListMessages(uint64_t notification_id) = 0;
  // The notification's created_by; NotFound for an unknown notification.
  virtual absl::StatusOr<std::string> GetCreator(uint64_t notification_id) = 0;
  // The notifications passing `filter`, newest first, at most `limit`.
  virtual absl::StatusOr<std::vector<Notification>> ListNotifications(
      const NotificationFilter& filter, int limit) = 0;

  // Marks enqueued messages past expire_at as expired and returns how many;
  // also fails pending messages whose lease ran out on their last try.
  virtual absl::StatusOr<int> ExpireDue(absl::Time now) = 0;
  // Claims up to `limit` due messages (enqueued with next_attempt_at ≤ now, or
  // pending with an expired lease) with SKIP LOCKED: status → pending,
  // try_count += 1, lease until now + `lease`, and a new lease token
  // (ClaimedMessage::lease).
  virtual absl::StatusOr<std::vector<ClaimedMessage>> Claim(int limit, absl::Duration lease) = 0;
  // Final or retry outcomes of a claimed message. Recorded only while
  // `lease` (the claim's ClaimedMessage::lease) still holds the message:
  // once its lease expired and another claim took it, nothing changes and
  // the result is Aborted (delivery is at-least-once: both claims sent).
  virtual absl::Status MarkPublished(uint64_t message_id, absl::string_view lease) = 0;
  virtual absl::Status MarkFailed(uint64_t message_id, absl::string_view lease,
                                  absl::string_view error) = 0;
  virtual absl::Status MarkRetry(uint64_t message_id, absl::string_view lease,
                                 absl::string_view error, absl::Time next_attempt_at) = 0;
  // Returns a claimed, unsent message to the queue as it was (shutdown);
  // Aborted like Mark* when `lease` no longer holds it.
  virtual absl::Status Release(uint64_t message_id, absl::string_view lease) = 0;
  // Deletes published messages last updated before `before` and returns how
  // many (Siren's cleanup_queue). Their notifications stay, so that an
  // idempotency key never sends twice.
  virtual absl::StatusOr<int64_t> DeletePublished(absl::Time before) = 0;
};

class AlertRepository {
 public:
  virtual ~AlertRepository() = default;
  // Stores the group's alerts (with notification_id set on each). An alert
  // with a fingerprint already stored for the provider with the same
  // starts_at is the same instance resent: its row is updated (status,
  // ends_at, annotations, notification_id, Siren's fields), not duplicated.
  // With `ids` (may be null), the stored rows' ids in the order of `alerts`.
  virtual absl::Status Insert(const std::vector<Alert>& alerts,
                              std::vector<uint64_t>* ids = nullptr) = 0;
  // Alerts matching `filter`, newest first (by triggered_at): one page, and
  // in `total` (may be null) how many match.
  virtual absl::StatusOr<std::vector<Alert>> List(const AlertFilter& filter, const Page& page,
                                                  int* total) = 0;
};

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_REPOSITORY_H_
