// The alert hook at Siren's paths (CreateAlerts, CreateAlertsWithNamespace)
// and at /api/v1beta1 (NotificationService.CreateAlerts, whose namespace
// variant is the same route) on the notification core with in-memory repositories: which token opens
// which route, and that a request the hook refuses stores no alert and
// notifies nobody.
#include <google/protobuf/util/json_util.h>
#include <grpcpp/test/server_context_test_spouse.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "common/auth/authenticator.h"
#include "gtest/gtest.h"
#include "server/notification/core/fakes.h"
#include "server/notification/api/grpc_service.h"
#include "server/notification/siren/siren_service.h"

namespace sluice::notification::siren {
namespace {

using nlohmann::json;

constexpr char kProviderToken[] = "provider-token-0123456789abcdef";
constexpr char kSecret1[] = "cortex-1-hook-secret-0123456789abcdef";
constexpr char kSecret2[] = "cortex-2-hook-secret-0123456789abcdef";

// One firing alert of team db (Alertmanager's webhook payload, version 4).
google::protobuf::Struct Payload() {
  json body = {{"version", "4"},
               {"status", "firing"},
               {"groupKey", "{}:{team=\"db\"}"},
               {"commonLabels", {{"team", "db"}}},
               {"alerts",
                {{{"status", "firing"},
                  // What Siren's cortex plugin requires of an alert.
                  {"labels", {{"team", "db"}, {"alertname", "CPUHigh"}, {"severity", "WARNING"}}},
                  {"annotations",
                   {{"summary", "forged"}, {"resource", "db-1"}, {"template", "CPU"},
                    {"metric_name", "cpu"}, {"metric_value", "90"}}},
                  {"startsAt", "2026-11-26T10:00:00Z"},
                  {"fingerprint", "f1"}}}}};
  google::protobuf::Struct out;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(body.dump(), &out).ok());
  return out;
}

class AlertHookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auth::AuthOptions o;
    o.mode = auth::AuthMode::kInsecureDev;  // the hop proof is not what is tested here
    auto a = auth::Authenticator::Create(o, /*listener_mtls=*/false, nullptr);
    ASSERT_TRUE(a.ok()) << a.status();
    authenticator_ = *std::move(a);
    // Cortex providers 1 (namespaces 5 and 6) and 2 (namespace 7).
    for (uint64_t pid : {1, 2}) {
      AlertProvider p;
      p.id = pid;
      p.type = "cortex";
      p.urn = absl::StrCat("cortex-", pid);
      alerting_repo_.providers[pid] = p;
    }
    for (auto [nid, pid] : std::vector<std::pair<uint64_t, uint64_t>>{{5, 1}, {6, 1}, {7, 2}}) {
      AlertNamespace n;
      n.id = nid;
      n.provider_id = pid;
      n.urn = absl::StrCat("team-", nid);
      alerting_repo_.namespaces[nid] = n;
    }
    // Namespaces 5 and 6 each subscribe their own receiver to team=db.
    for (uint64_t ns : {5, 6}) {
      Receiver r;
      r.name = absl::StrCat("oncall-", ns);
      r.type = "http";
      auto rid = receivers_.Create(r, "");
      ASSERT_TRUE(rid.ok());
      Subscription s;
      s.urn = absl::StrCat("db-", ns);
      s.namespace_id = ns;
      s.match = {{"team", "db"}};
      s.receivers = {{*rid, json::object()}};
      ASSERT_TRUE(subscriptions_.Create(s, "").ok());
    }
  }

  api::Services Services() {
    api::Services s{};
    s.alerts = &alert_service_;
    s.authenticator = authenticator_.get();
    s.admins = &admins_;
    s.hook_tokens = &hook_tokens_;
    s.hook_secrets = &hook_secrets_;
    s.alerting = &alerting_;
    return s;
  }

  // POST /v1beta1/alerts/{type}/{provider_id} with `token`.
  grpc::Status Post(const std::string& type, uint64_t provider_id, const std::string& token) {
    SirenGrpcService service(Services());
    grpc::ServerContext ctx;
    grpc::testing::ServerContextTestSpouse spouse(&ctx);
    if (!token.empty()) spouse.AddClientMetadata("authorization", "Bearer " + token);
    spb::CreateAlertsRequest req;
    req.set_provider_type(type);
    req.set_provider_id(provider_id);
    *req.mutable_body() = Payload();
    spb::CreateAlertsResponse resp;
    return service.CreateAlerts(&ctx, &req, &resp);
  }

  // The receivers the queued notifications went to.
  std::set<uint64_t> NotifiedReceivers() {
    std::set<uint64_t> out;
    for (const auto& [id, row] : queue_.messages) out.insert(row.m.receiver_id);
    return out;
  }

  // POST /v1beta1/alerts/{type}/{provider_id}/{namespace_id} with `token`.
  grpc::Status PostWithNamespace(const std::string& type, uint64_t provider_id,
                                 uint64_t namespace_id, const std::string& token) {
    SirenGrpcService service(Services());
    grpc::ServerContext ctx;
    grpc::testing::ServerContextTestSpouse spouse(&ctx);
    if (!token.empty()) spouse.AddClientMetadata("authorization", "Bearer " + token);
    spb::CreateAlertsWithNamespaceRequest req;
    req.set_provider_type(type);
    req.set_provider_id(provider_id);
    req.set_namespace_id(namespace_id);
    *req.mutable_body() = Payload();
    spb::CreateAlertsWithNamespaceResponse resp;
    return service.CreateAlertsWithNamespace(&ctx, &req, &resp);
  }

  testing::FakeReceiverRepository receivers_;
  testing::FakeSubscriptionRepository subscriptions_;
  testing::FakeTemplateRepository templates_;
  testing::FakeNotificationRepository queue_;
  testing::FakeAlertRepository alerts_;
  NotificationService notifications_{&receivers_, &subscriptions_, &templates_, &queue_,
                                     QueuePolicy{}, nullptr};
  AlertService alert_service_{&notifications_, &alerts_};
  std::unique_ptr<auth::Authenticator> authenticator_;
  auth::AdminList admins_;
  api::AlertHookTokens hook_tokens_ = {{"cortex/1", kProviderToken}};
  AlertHookSecrets hook_secrets_ = {{"cortex/1", kSecret1}, {"cortex/2", kSecret2}};
  testing::FakeAlertingRepository alerting_repo_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  TemplateService templates_service_{&templates_};
  AlertingService alerting_{&alerting_repo_, &templates_service_, crypter_.get(), {}};
};

// Review R3-M2: the namespace route takes the namespace's own token and
// notifies that namespace's subscriptions only.
TEST_F(AlertHookTest, NamespaceRouteTakesItsOwnToken) {
  grpc::Status st = PostWithNamespace("cortex", 1, 5, NamespaceHookToken(kSecret1, "cortex", 1, 5));
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(alerts_.rows.size(), 1u);
  EXPECT_EQ(alerts_.rows[0].namespace_id, 5u);
  EXPECT_EQ(NotifiedReceivers(), std::set<uint64_t>{1});  // oncall-5 only
}

// Review R3-M2: another tenant's token, the provider route's token and no
// token are refused (401) before anything is stored or sent.
TEST_F(AlertHookTest, NamespaceRouteRefusesEveryOtherToken) {
  for (const std::string& token :
       {NamespaceHookToken(kSecret1, "cortex", 1, 6),  // team-6's, same provider
        NamespaceHookToken(kSecret2, "cortex", 2, 7),  // team-7's, other provider
        std::string(kProviderToken), std::string()}) {
    grpc::Status st = PostWithNamespace("cortex", 1, 5, token);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED) << token;
  }
  EXPECT_TRUE(alerts_.rows.empty());
  EXPECT_TRUE(queue_.notifications.empty());
}

// Review R3-M2: even with a valid token for the URL, a namespace that is
// not the URL provider's (or does not exist) takes no alert (404).
TEST_F(AlertHookTest, NamespaceOfAnotherProviderIsNotFound) {
  grpc::Status st = PostWithNamespace("cortex", 1, 7, NamespaceHookToken(kSecret1, "cortex", 1, 7));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND) << st.error_message();
  st = PostWithNamespace("cortex", 1, 99, NamespaceHookToken(kSecret1, "cortex", 1, 99));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND) << st.error_message();
  st = PostWithNamespace("prometheus", 1, 5, NamespaceHookToken(kSecret1, "prometheus", 1, 5));
  EXPECT_NE(st.error_code(), grpc::StatusCode::OK);  // no prometheus secret: closed
  EXPECT_TRUE(alerts_.rows.empty());
  EXPECT_TRUE(queue_.notifications.empty());
}

// The provider route keeps its own token; a namespace's token does not
// open it.
TEST_F(AlertHookTest, ProviderRouteTakesOnlyTheProviderToken) {
  EXPECT_EQ(Post("cortex", 1, NamespaceHookToken(kSecret1, "cortex", 1, 5)).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(alerts_.rows.empty());
  grpc::Status st = Post("cortex", 1, kProviderToken);
  EXPECT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(alerts_.rows.size(), 1u);
}

// Review R3-L3: namespace 0's routes are every namespace's subscriptions.
// The hook refuses it before the ingest: nothing stored, nobody notified
// (a refusal after it notified everyone, and Alertmanager's retries again).
TEST_F(AlertHookTest, NamespaceZeroIsRefusedBeforeAnyoneIsNotified) {
  grpc::Status st = PostWithNamespace("cortex", 1, 0, kProviderToken);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message();
  EXPECT_NE(st.error_message().find("namespace_id"), std::string::npos) << st.error_message();
  EXPECT_TRUE(queue_.notifications.empty());
  EXPECT_TRUE(alerts_.rows.empty());
}

// /api/v1beta1/alerts/{type}/{id}/{namespace_id} is the same namespace
// route: the same checks apply.
TEST_F(AlertHookTest, ApiNamespaceRouteAppliesTheSameChecks) {
  auto post = [&](uint64_t ns, const std::string& token) {
    api::NotificationGrpcService service(Services());
    grpc::ServerContext ctx;
    grpc::testing::ServerContextTestSpouse spouse(&ctx);
    if (!token.empty()) spouse.AddClientMetadata("authorization", "Bearer " + token);
    api::pb::CreateAlertsRequest req;
    req.set_provider_type("cortex");
    req.set_provider_id("1");
    req.set_namespace_id(ns);
    req.set_status("firing");
    (*req.mutable_common_labels())["team"] = "db";
    auto* a = req.add_alerts();
    a->set_status("firing");
    (*a->mutable_labels())["team"] = "db";
    (*a->mutable_labels())["severity"] = "WARNING";
    for (const char* k : {"resource", "template", "metric_name", "metric_value"}) {
      (*a->mutable_annotations())[k] = "x";
    }
    a->set_fingerprint("f1");
    a->set_starts_at("2026-11-26T10:00:00Z");
    api::pb::CreateAlertsResponse resp;
    return service.CreateAlerts(&ctx, &req, &resp);
  };
  EXPECT_EQ(post(5, kProviderToken).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(post(5, NamespaceHookToken(kSecret1, "cortex", 1, 6)).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(post(7, NamespaceHookToken(kSecret1, "cortex", 1, 7)).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(alerts_.rows.empty());
  grpc::Status st = post(5, NamespaceHookToken(kSecret1, "cortex", 1, 5));
  EXPECT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(alerts_.rows.size(), 1u);
  EXPECT_EQ(alerts_.rows[0].namespace_id, 5u);
  EXPECT_EQ(NotifiedReceivers(), std::set<uint64_t>{1});
  // The provider route (namespace_id 0) keeps the provider's token.
  st = post(0, kProviderToken);
  EXPECT_TRUE(st.ok()) << st.error_message();
}

}  // namespace
}  // namespace sluice::notification::siren
