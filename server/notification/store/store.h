// PostgreSQL (SOCI) implementations of the notification repositories.
// Schema: migrations/0001_notification_schema.up.sql. Mutations of
// receivers, subscriptions and templates write an audit_logs row in the same
// transaction.
#ifndef SLUICE_SERVER_NOTIFICATION_STORE_STORE_H_
#define SLUICE_SERVER_NOTIFICATION_STORE_STORE_H_

#include "common/db/migrate.h"
#include "common/db/pool.h"
#include "server/notification/core/alerting.h"
#include "server/notification/core/repository.h"
#include "server/notification/core/silence.h"

namespace sluice::db {
// The notification component's migrations (tools/migrations.bzl).
const MigrationSet& NotificationMigrations();
}  // namespace sluice::db

namespace sluice::notification {

class PostgresReceiverRepository : public ReceiverRepository {
 public:
  explicit PostgresReceiverRepository(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<uint64_t> NextId() override;
  absl::StatusOr<uint64_t> Create(const Receiver& r, absl::string_view actor) override;
  absl::StatusOr<Receiver> Get(uint64_t id) override;
  absl::StatusOr<std::vector<Receiver>> List(const Labels& labels, const Page* page,
                                             int* total) override;
  absl::StatusOr<std::vector<Receiver>> MatchAny(const std::vector<Labels>& selectors) override;
  absl::Status Update(const Receiver& r, absl::string_view actor) override;
  absl::Status Delete(uint64_t id, absl::string_view actor) override;

 private:
  db::Pool* pool_;
};

class PostgresSubscriptionRepository : public SubscriptionRepository {
 public:
  explicit PostgresSubscriptionRepository(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<uint64_t> Create(const Subscription& s, absl::string_view actor) override;
  absl::StatusOr<Subscription> Get(uint64_t id) override;
  using SubscriptionRepository::List;
  absl::StatusOr<std::vector<Subscription>> List(const SubscriptionFilter& filter, const Page* page,
                                                 int* total) override;
  absl::Status Update(const Subscription& s, absl::string_view actor) override;
  absl::Status Delete(uint64_t id, absl::string_view actor) override;

 private:
  db::Pool* pool_;
};

class PostgresTemplateRepository : public TemplateRepository {
 public:
  explicit PostgresTemplateRepository(db::Pool* pool) : pool_(pool) {}
  absl::Status Upsert(const Template& t, absl::string_view actor) override;
  absl::StatusOr<Template> Get(absl::string_view name) override;
  absl::StatusOr<std::vector<Template>> List(absl::string_view tag) override;
  absl::Status Delete(absl::string_view name, absl::string_view actor) override;

 private:
  db::Pool* pool_;
};

class PostgresNotificationRepository : public NotificationRepository {
 public:
  explicit PostgresNotificationRepository(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<uint64_t> Create(const Notification& n, const std::vector<Delivery>& deliveries,
                                  int max_tries, absl::Time expire_at) override;
  absl::StatusOr<uint64_t> FindByIdempotencyKey(absl::string_view key) override;
  absl::StatusOr<std::vector<Message>> ListMessages(uint64_t notification_id) override;
  absl::StatusOr<std::string> GetCreator(uint64_t notification_id) override;
  absl::StatusOr<std::vector<Notification>> ListNotifications(const NotificationFilter& filter,
                                                             int limit) override;
  absl::StatusOr<int> ExpireDue(absl::Time now) override;
  absl::StatusOr<std::vector<ClaimedMessage>> Claim(int limit, absl::Duration lease) override;
  absl::Status MarkPublished(uint64_t message_id, absl::string_view lease) override;
  absl::Status MarkFailed(uint64_t message_id, absl::string_view lease,
                          absl::string_view error) override;
  absl::Status MarkRetry(uint64_t message_id, absl::string_view lease, absl::string_view error,
                         absl::Time next_attempt_at) override;
  absl::Status Release(uint64_t message_id, absl::string_view lease) override;
  absl::StatusOr<int64_t> DeletePublished(absl::Time before) override;

 private:
  db::Pool* pool_;
};

class PostgresAlertRepository : public AlertRepository {
 public:
  explicit PostgresAlertRepository(db::Pool* pool) : pool_(pool) {}
  absl::Status Insert(const std::vector<Alert>& alerts,
                      std::vector<uint64_t>* ids = nullptr) override;
  absl::StatusOr<std::vector<Alert>> List(const AlertFilter& filter, const Page& page,
                                          int* total) override;

 private:
  db::Pool* pool_;
};

// Silences (migrations/0009_silences.up.sql); ids are UUIDs made by
// PostgreSQL.
class PostgresSilenceRepository : public SilenceRepository {
 public:
  explicit PostgresSilenceRepository(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<Silence> Create(const Silence& s) override;
  absl::StatusOr<std::vector<Silence>> List(const SilenceFilter& filter) override;
  absl::StatusOr<Silence> Get(absl::string_view id) override;
  absl::Status Expire(absl::string_view id) override;

 private:
  db::Pool* pool_;
};

// Alert providers, namespaces and rules (migrations/0012_alerting.up.sql).
class PostgresAlertingRepository : public AlertingRepository {
 public:
  explicit PostgresAlertingRepository(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<uint64_t> CreateProvider(const AlertProvider& p,
                                          const std::string& credentials) override;
  absl::StatusOr<AlertProvider> GetProvider(uint64_t id, std::string* credentials) override;
  absl::StatusOr<std::vector<AlertProvider>> ListProviders(absl::string_view urn,
                                                           absl::string_view type) override;
  absl::Status UpdateProvider(const AlertProvider& p, const std::string& credentials) override;
  absl::Status DeleteProvider(uint64_t id) override;
  absl::StatusOr<uint64_t> CreateNamespace(const AlertNamespace& n,
                                           const std::string& credentials) override;
  absl::StatusOr<AlertNamespace> GetNamespace(uint64_t id, std::string* credentials) override;
  absl::StatusOr<std::vector<AlertNamespace>> ListNamespaces(uint64_t provider_id) override;
  absl::Status UpdateNamespace(const AlertNamespace& n, const std::string& credentials) override;
  absl::Status DeleteNamespace(uint64_t id) override;
  absl::StatusOr<std::vector<AlertRule>> ListRules(const AlertRuleFilter& filter) override;
  absl::StatusOr<AlertRule> UpsertRule(const AlertRule& r) override;

 private:
  db::Pool* pool_;
};

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_STORE_STORE_H_
