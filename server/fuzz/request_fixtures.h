// The in-memory servers the request fuzzer (request_fuzzer.cc) sends its
// bodies to: the access and notification core services exactly as
// server/access/module.cc and server/notification/module.cc wire them, but on
// the core's own in-memory fakes instead of PostgreSQL, with a fixed set of
// policies, providers, resources, appeals, receivers, subscriptions and
// templates for the requests to refer to.
//
// Each input gets a fresh world whose stored state is a copy of one baseline
// built once through the services (so it is exactly what they store), so a
// crash never depends on what earlier inputs left behind and reproduces from
// its input alone.
#ifndef SLUICE_SERVER_FUZZ_REQUEST_FIXTURES_H_
#define SLUICE_SERVER_FUZZ_REQUEST_FIXTURES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/crypto.h"
#include "server/access/core/access_services.h"
#include "server/access/core/activity/activity_service.h"
#include "server/access/core/activity/fake_activity_repository.h"
#include "server/access/core/fakes.h"
#include "server/access/core/policy_service.h"
#include "server/access/core/provider_service.h"
#include "server/notification/core/catalog.h"
#include "server/notification/core/delivery.h"
#include "server/notification/core/fakes.h"
#include "server/notification/core/notify.h"

namespace sluice::fuzz {

// Who calls. Admin routes run as kAdmin (the handlers' RequireAdmin passed),
// appeals as kUser, approvals as kApprover.
inline constexpr char kAdmin[] = "admin@example.com";
inline constexpr char kUser[] = "alice@example.com";
inline constexpr char kApprover[] = "owner@example.com";

// Baseline ids the seed corpus refers to (checked when the baseline is built).
inline constexpr char kPendingAppealId[] = "00000000-0000-0000-0000-100000000001";
inline constexpr char kManualResourceId[] = "00000000-0000-0000-0000-000000000001";
inline constexpr char kAutoResourceId[] = "00000000-0000-0000-0000-000000000002";
inline constexpr char kIamResourceId[] = "00000000-0000-0000-0000-000000000003";
inline constexpr char kNoopResourceId[] = "00000000-0000-0000-0000-000000000004";
// The policy PUT /policies/{id} updates when the body names none: it has IAM
// secrets, so the masked-secret rules run.
inline constexpr char kIamPolicyId[] = "iam-pol";

// Answers the IAM lookup of a policy with an `iam` config.
class FakeIam : public access::IamClient {
 public:
  absl::StatusOr<google::protobuf::Struct> GetUser(const access::pb::IAM& iam,
                                                   const std::string& user_email) override;
};

// FakeAlertRepository with the PostgreSQL store's rule for an alert without
// startsAt (server/notification/store/queue_store.cc): it is stored as
// starting now, not at absl::InfinitePast(), which no reply could carry.
class StoreLikeAlertRepository : public notification::testing::FakeAlertRepository {
 public:
  absl::Status Insert(const std::vector<notification::Alert>& alerts,
                      std::vector<uint64_t>* ids = nullptr) override;
};

// The access core: policies, providers (the core's scriptable fake plugin
// "fake" and the real "noop" plugin), resources and appeals.
struct AccessWorld {
  // A world holding a copy of the baseline's stored state.
  static std::unique_ptr<AccessWorld> Fresh();
  // Makes *w what Fresh() returns, at the same address (the in-process gRPC
  // handlers of grpc_routes.h keep pointers to its services).
  static void Renew(AccessWorld* w);

  AccessWorld();
  AccessWorld(const AccessWorld&) = delete;
  AccessWorld& operator=(const AccessWorld&) = delete;

  // Registers a provider ("fake", "under-test") whose resource type "fuzz"
  // follows `policy` (id, version), and a resource of that type; returns the
  // resource's id. The provider service's errors (e.g. an unknown policy).
  absl::StatusOr<std::string> AddResourceUnder(const access::pb::Policy& policy);

  // The clock of the appeal service; tests of expiry move it.
  absl::Time now = absl::FromUnixSeconds(1800000000);
  access::testing::FakePolicyRepository policy_repo;
  access::testing::FakeProviderRepository provider_repo;
  access::testing::FakeResourceRepository resource_repo;
  access::testing::FakeAppealRepository appeal_repo;
  access::testing::FakeProviderJournal journal;
  access::testing::FakeProviderClient* fake_plugin = nullptr;  // owned by registry
  std::unique_ptr<access::ProviderRegistry> registry;
  FakeIam iam;
  access::PolicyService policies;
  access::ProviderService providers;
  access::ResourceService resources;
  access::AccessServices services;  // appeals, approvals, grants, reconcile
  access::testing::FakeActivityRepository activity_repo;
  access::ActivityService activities;

 private:
  static const AccessWorld& Baseline();
  void CopyStateFrom(const AccessWorld& other);
  void BuildBaseline();
};

// The notification core with the real receiver types (their HTTP calls
// answered 200 without a network; file receivers point at a directory that
// does not exist, so they fail without writing) and a synchronous delivery
// pool (RunOnce) that renders and "sends" what was enqueued.
struct NotificationWorld {
  static std::unique_ptr<NotificationWorld> Fresh();
  // As AccessWorld::Renew.
  static void Renew(NotificationWorld* w);

  NotificationWorld();
  NotificationWorld(const NotificationWorld&) = delete;
  NotificationWorld& operator=(const NotificationWorld&) = delete;

  // The receiver types and the codec, shared by every world (stateless).
  static notification::ReceiverPlugins& Plugins();
  static const notification::SecretCodec& Codec();

  notification::testing::FakeReceiverRepository receiver_repo;
  notification::testing::FakeSubscriptionRepository subscription_repo;
  notification::testing::FakeTemplateRepository template_repo;
  notification::testing::FakeNotificationRepository queue;
  StoreLikeAlertRepository alert_repo;
  notification::ReceiverService receivers;
  notification::SubscriptionService subscriptions;
  notification::TemplateService templates;
  notification::NotificationService notifications;
  notification::AlertService alerts;
  notification::DeliveryWorkerPool delivery;

 private:
  static const NotificationWorld& Baseline();
  void CopyStateFrom(const NotificationWorld& other);
  void BuildBaseline();
};

// The process's development Crypter (what the server falls back to without
// a key; the key does not matter here).
const Crypter& FuzzCrypter();

}  // namespace sluice::fuzz

#endif  // SLUICE_SERVER_FUZZ_REQUEST_FIXTURES_H_
