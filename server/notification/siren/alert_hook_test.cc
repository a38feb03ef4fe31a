// The alert hook at Siren's paths (CreateAlerts, CreateAlertsWithNamespace)
// on the notification core with in-memory repositories: a request the hook
// refuses stores no alert and notifies nobody.
#include <google/protobuf/util/json_util.h>
#include <grpcpp/test/server_context_test_spouse.h>

#include "absl/strings/str_cat.h"
#include "common/auth/authenticator.h"
#include "gtest/gtest.h"
#include "server/notification/core/fakes.h"
#include "server/notification/siren/siren_service.h"

namespace sluice::notification::siren {
namespace {

using nlohmann::json;

constexpr char kProviderToken[] = "provider-token-0123456789abcdef";

// One firing alert of team db (Alertmanager's webhook payload, version 4).
google::protobuf::Struct Payload() {
  json body = {{"version", "4"},
               {"status", "firing"},
               {"groupKey", "{}:{team=\"db\"}"},
               {"commonLabels", {{"team", "db"}}},
               {"alerts",
                {{{"status", "firing"},
                  {"labels", {{"team", "db"}, {"alertname", "CPUHigh"}}},
                  {"annotations", {{"summary", "forged"}}},
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
    return s;
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
};

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

}  // namespace
}  // namespace sluice::notification::siren
