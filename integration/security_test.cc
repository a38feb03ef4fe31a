// Replays of the security review's reproductions (../shared/reviews/
// security-2026-11.md): part 1 (C1, C2, H3, H4, L1, L5, M12) and the
// access/API side of part 2 (C5, M1, M9, M10). Each attack runs against a
// real stack deployed the production way (header mode behind the gateway's
// proxy token) and must be refused. The notification side of part 2 is in
// notification_security_test, the sink's in sink_security_test, the
// access limits in security_access_test, M2 in reconcile_test.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/testing/silent_listener.h"
#include "integration/harness.h"
#include "integration/suite_stack.h"
#include "proto/sluice/access/v1beta1/access.grpc.pb.h"
#include "proto/sluice/server/v1beta1/server.grpc.pb.h"

namespace sluice::integration {
namespace {

using nlohmann::json;
namespace apb = ::sluice::access::v1beta1;

constexpr char kAdmin[] = "admin@example.com";
constexpr char kEve[] = "eve@example.com";      // an authenticated non-admin attacker
constexpr char kBob[] = "bob@example.com";      // a requester
constexpr char kOwner[] = "owner@example.com";  // the resources' approver

class SecurityTest : public SuiteStackTest {
 protected:
  // Bob and Eve may send notifications (M12/L5 below scope what they sent).
  static void SetUpTestSuite() {
    StartSuiteStack("notification:\n  senders: [bob@example.com, eve@example.com]\n");
  }

  static HttpResponse Call(const std::string& method, const std::string& path,
                           const json& body = nullptr, std::vector<std::string> headers = {}) {
    return Http(method, absl::StrCat(stack_->http_base(), "/api/v1beta1", path),
                body.is_null() ? "" : body.dump(), headers);
  }
  static HttpResponse As(const std::string& who, const std::string& method,
                         const std::string& path, const json& body = nullptr) {
    return Call(method, path, body, {"X-Auth-Email: " + who});
  }
  static void Expect(const HttpResponse& r, long http, int code, const std::string& needle = "") {
    EXPECT_EQ(r.status, http) << r.body;
    EXPECT_EQ(r.Json().value("code", -1), code) << r.body;
    if (!needle.empty()) {
      EXPECT_NE(r.Json().value("message", "").find(needle), std::string::npos) << r.body;
    }
  }

  // An admin-made policy (one manual step approved by details.owner) and a
  // noop provider; returns the resource id, whose owner is kOwner.
  static std::string Setup(const std::string& id) {
    json policy = {{"id", id},
                   {"steps", {{{"name", "owner"}, {"strategy", "manual"},
                               {"approvers", {"$appeal.resource.details.owner"}}}}},
                   {"appeal", {{"allow_permanent_access", true}}}};
    EXPECT_EQ(As(kAdmin, "POST", "/policies", policy).status, 200);
    json provider = {{"type", "noop"}, {"urn", "noop-" + id}, {"allowed_account_types", {"user"}},
                     {"resources", {{{"type", "noop"}, {"policy", {{"id", id}, {"version", 1}}},
                                     {"roles", {{{"id", "viewer"}}}}}}}};
    EXPECT_EQ(As(kAdmin, "POST", "/providers", provider).status, 200);
    auto rs = As(kAdmin, "GET", "/resources?urn=noop-" + id).Json()["resources"];
    std::string rid = rs.at(0)["id"];
    EXPECT_EQ(As(kAdmin, "PUT", "/resources/" + rid, json{{"details", {{"owner", kOwner}}}}).status,
              200);
    return rid;
  }
  static std::string AppealAs(const std::string& who, const std::string& rid) {
    auto r = As(who, "POST", "/appeals", json{{"resources", {{{"id", rid}, {"role", "viewer"}}}}});
    EXPECT_EQ(r.status, 200) << r.body;
    return r.Json()["appeals"][0].value("id", "");
  }
};

// C1: the raw gRPC port believes no identity without the proxy token.
TEST_F(SecurityTest, C1_DirectGrpcWithoutProxyTokenIsUnauthenticated) {
  auto channel = grpc::CreateChannel(stack_->grpc_target(), grpc::InsecureChannelCredentials());
  auto providers = apb::ProviderService::NewStub(channel);
  grpc::ClientContext ctx;  // grpcurl -H 'x-auth-email: admin@corp' … DeleteProvider
  ctx.AddMetadata("x-auth-email", kAdmin);
  apb::DeleteProviderRequest req;
  req.set_id("00000000-0000-0000-0000-000000000000");
  apb::DeleteProviderResponse resp;
  grpc::Status st = providers->DeleteProvider(&ctx, req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED) << st.error_message();
  EXPECT_NE(st.error_message().find("proxy token"), std::string::npos) << st.error_message();

  grpc::ClientContext wrong;
  wrong.AddMetadata("x-auth-email", kAdmin);
  wrong.AddMetadata("x-sluice-proxy-token", "not-the-token-0123456789");
  st = providers->DeleteProvider(&wrong, req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(st.error_message().find("wrong proxy token"), std::string::npos) << st.error_message();

  // With the token (what the gateway sends) the identity is believed.
  auto server = sluice::server::v1beta1::ServerService::NewStub(channel);
  auto ok = stack_->GrpcContext(kAdmin);
  sluice::server::v1beta1::GetServerInfoResponse info;
  ASSERT_TRUE(server->GetServerInfo(ok.get(), {}, &info).ok());
  EXPECT_EQ(info.caller_email(), kAdmin);

  // The listener is on loopback only.
  EXPECT_NE(stack_->server().Output().find("grpc_host=127.0.0.1"), std::string::npos)
      << stack_->server().Output();
}

// C1: a smuggled Grpc-Metadata-X-Auth-Email never becomes the identity.
TEST_F(SecurityTest, C1_SmuggledGrpcMetadataIdentityIsDropped) {
  auto only = Call("GET", "/me/approvals", nullptr, {"Grpc-Metadata-X-Auth-Email: victim@example.com"});
  Expect(only, 401, 16, "X-Auth-Email");
  // Both: the proxy's header always wins (the review needed retries: Go map
  // order decided which value the server saw first).
  for (int i = 0; i < 20; ++i) {
    auto r = Call("GET", "/server-info", nullptr,
                  {"X-Auth-Email: eve@example.com", "Grpc-Metadata-X-Auth-Email: victim@example.com"});
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_EQ(r.Json()["caller_email"], kEve);
  }
  // Two identity headers are ambiguous: refused, never one picked.
  auto twice = Call("GET", "/server-info", nullptr,
                    {"X-Auth-Email: eve@example.com", "X-Auth-Email: victim@example.com"});
  Expect(twice, 401, 16, "more than one");
  // A client-sent proxy token header is not forwarded either (the gateway's
  // own token is), and is harmless.
  auto token = Call("GET", "/server-info", nullptr,
                    {"X-Sluice-Proxy-Token: guess", "X-Auth-Email: eve@example.com"});
  EXPECT_EQ(token.status, 200) << token.body;
}

// C2: approver lists change only by admins, and nobody approves their own appeal.
TEST_F(SecurityTest, C2_ApproverEditsAndSelfApprovalAreRefused) {
  std::string rid = Setup("sec-c2");
  std::string id = AppealAs(kEve, rid);
  // POST …/approvals/owner/approvers {"email":"eve@x"} as eve.
  Expect(As(kEve, "POST", "/appeals/" + id + "/approvals/owner/approvers", json{{"email", kEve}}),
         403, 7, "admins only");
  Expect(As(kEve, "DELETE", "/appeals/" + id + "/approvals/owner/approvers/" + std::string(kOwner)),
         403, 7, "admins only");
  Expect(As(kEve, "POST", "/appeals/" + id + "/approvals/owner", json{{"action", "approve"}}), 403, 7);
  // Even when an admin adds the requester, the step does not allow it.
  ASSERT_EQ(As(kAdmin, "POST", "/appeals/" + id + "/approvals/owner/approvers",
               json{{"email", kEve}}).status, 200);
  Expect(As(kEve, "POST", "/appeals/" + id + "/approvals/owner", json{{"action", "approve"}}),
         403, 7, "allow_self_approval");
  auto appeal = As(kAdmin, "GET", "/appeals/" + id).Json()["appeal"];
  EXPECT_EQ(appeal["status"], "pending");
  EXPECT_EQ(As(kAdmin, "GET", "/grants?account_ids=eve@example.com&statuses=active").Json()["total"], 0);
}

// H3: revoking is for admins and the grant's own account; bulk revoke needs
// account_ids.
TEST_F(SecurityTest, H3_RevokeNeedsAuthorityAndBulkRevokeNeedsAccounts) {
  std::string rid = Setup("sec-h3");
  std::string id = AppealAs(kBob, rid);
  ASSERT_EQ(As(kOwner, "POST", "/appeals/" + id + "/approvals/owner", json{{"action", "approve"}}).status,
            200);
  Expect(As(kEve, "PUT", "/appeals/" + id + "/revoke", json{{"reason", "x"}}), 403, 7);
  // POST /appeals/revoke {"provider_types":["noop"]}: as a non-admin, then as an admin.
  Expect(As(kEve, "POST", "/appeals/revoke", json{{"provider_types", {"noop"}}, {"reason", "x"}}),
         403, 7, "admins only");
  Expect(As(kAdmin, "POST", "/appeals/revoke", json{{"provider_types", {"noop"}}, {"reason", "x"}}),
         400, 3, "account_ids");
  EXPECT_EQ(As(kAdmin, "GET", "/grants?account_ids=bob@example.com&statuses=active").Json()["total"], 1);
  // The grant's own account may give it up.
  auto own = As(kBob, "PUT", "/appeals/" + id + "/revoke", json{{"reason", "not needed"}});
  EXPECT_EQ(own.status, 200) << own.body;
}

// H4: policies, providers and resources change only by admins, so nobody can
// make themselves the approver through resource details.
TEST_F(SecurityTest, H4_OnlyAdminsChangePoliciesProvidersAndResources) {
  std::string rid = Setup("sec-h4");
  Expect(As(kEve, "PUT", "/resources/" + rid, json{{"details", {{"owner", kEve}}}}), 403, 7);
  EXPECT_EQ(As(kAdmin, "GET", "/resources/" + rid).Json()["resource"]["details"]["owner"], kOwner);
  Expect(As(kEve, "DELETE", "/resources/" + rid), 403, 7);
  Expect(As(kEve, "POST", "/policies", json{{"id", "evil"}, {"steps", json::array()}}), 403, 7);
  Expect(As(kEve, "PUT", "/policies/sec-h4", json{{"steps", json::array()}}), 403, 7);
  Expect(As(kEve, "POST", "/providers", json{{"type", "noop"}, {"urn", "evil"}}), 403, 7);
  std::string pid = As(kAdmin, "GET", "/providers").Json()["providers"][0]["id"];
  Expect(As(kEve, "PUT", "/providers/" + pid, json{{"labels", {{"x", "y"}}}}), 403, 7);
  Expect(As(kEve, "DELETE", "/providers/" + pid), 403, 7);
  // Reading them needs only an identity.
  EXPECT_EQ(As(kEve, "GET", "/policies/sec-h4").status, 200);
  EXPECT_EQ(As(kEve, "GET", "/resources/" + rid).status, 200);
}

// L1: reads need an identity and are scoped to the caller unless admin.
TEST_F(SecurityTest, L1_ReadsNeedAnIdentityAndAreScoped) {
  for (const char* path : {"/appeals?size=1000", "/approvals", "/audit-logs", "/providers",
                           "/policies/sec-l1", "/grants", "/resources"}) {
    Expect(Call("GET", path), 401, 16);
  }
  const std::string kMallory = "mallory@example.com";  // has never used Sluice
  std::string rid = Setup("sec-l1");
  std::string id = AppealAs(kBob, rid);
  ASSERT_EQ(As(kOwner, "POST", "/appeals/" + id + "/approvals/owner", json{{"action", "approve"}}).status,
            200);
  std::string gid = As(kBob, "GET", "/appeals/" + id).Json()["appeal"]["grant"]["id"];

  // Mallory sees none of it; Bob sees his own; the owner as approver; admins all.
  Expect(As(kMallory, "GET", "/appeals/" + id), 403, 7);
  Expect(As(kMallory, "GET", "/grants/" + gid), 403, 7);
  for (const auto& a : As(kMallory, "GET", "/appeals?size=1000").Json()["appeals"]) {
    EXPECT_TRUE(a["created_by"] == kMallory || a["account_id"] == kMallory) << a.dump();
  }
  EXPECT_EQ(As(kMallory, "GET", "/grants?account_ids=bob@example.com").Json()["total"], 0);
  EXPECT_EQ(As(kMallory, "GET", "/approvals").Json()["total"], 0);
  for (const auto& l : As(kMallory, "GET", "/audit-logs?actor=admin@example.com").Json()["audit_logs"]) {
    EXPECT_EQ(l["actor"], kMallory) << l.dump();
  }
  EXPECT_EQ(As(kBob, "GET", "/grants/" + gid).status, 200);
  EXPECT_EQ(As(kOwner, "GET", "/grants/" + gid).status, 200);  // the resource's approver
  EXPECT_GE(As(kOwner, "GET", "/grants?account_ids=bob@example.com").Json()["total"], 1);
  EXPECT_EQ(As(kAdmin, "GET", "/appeals/" + id).status, 200);
  EXPECT_GE(As(kAdmin, "GET", "/audit-logs?actor=admin@example.com").Json()["total"], 1);
}

// M12 + L5: the notification API needs an identity, admins for its catalog,
// the sender to read messages, and the alert hook its own token.
TEST_F(SecurityTest, M12_NotificationApiIsAuthenticatedAndScoped) {
  Expect(Call("GET", "/receivers"), 401, 16);
  Expect(Call("POST", "/notifications", json{{"receivers", {{{"id", 1}}}}, {"data", json::object()}}),
         401, 16);
  Expect(As(kEve, "POST", "/receivers",
            json{{"name", "x"}, {"type", "http"}, {"configurations", {{"url", "http://127.0.0.1:9/x"}}}}),
         403, 7, "notification.admins");
  auto created = As("tester@example.com", "POST", "/receivers",
                    json{{"name", "ops"}, {"type", "http"}, {"labels", {{"team", "sec"}}},
                         {"configurations", {{"url", "http://127.0.0.1:9/hook"}}}});
  ASSERT_EQ(created.status, 200) << created.body;
  Expect(As(kEve, "POST", "/subscriptions",
            json{{"urn", "s"}, {"receivers", {{{"id", created.Json()["id"]}}}}, {"match", {{"k", "v"}}}}),
         403, 7);
  Expect(As(kEve, "PUT", "/templates", json{{"name", "t"}, {"body", "{}"}}), 403, 7);
  EXPECT_EQ(As(kEve, "GET", "/receivers").status, 200);

  // Bob's notification: Eve cannot read its messages (ids are sequential).
  auto sent = Call("POST", "/notifications", json{{"receivers", {{{"team", "sec"}}}}, {"data", {{"a", 1}}}},
                   {"X-Auth-Email: bob@example.com", "Idempotency-Key: k1"});
  ASSERT_EQ(sent.status, 200) << sent.body;
  std::string nid = sent.Json()["notification_id"];
  Expect(As(kEve, "GET", "/notifications/" + nid + "/messages"), 403, 7);
  EXPECT_EQ(As(kBob, "GET", "/notifications/" + nid + "/messages").status, 200);
  EXPECT_EQ(As("tester@example.com", "GET", "/notifications/" + nid + "/messages").status, 200);
  // L5: the same key from another caller is another notification.
  auto eve_sent = Call("POST", "/notifications",
                       json{{"receivers", {{{"team", "sec"}}}}, {"data", {{"a", 1}}}},
                       {"X-Auth-Email: eve@example.com", "Idempotency-Key: k1"});
  ASSERT_EQ(eve_sent.status, 200) << eve_sent.body;
  EXPECT_NE(eve_sent.Json()["notification_id"], nid);

  // POST /alerts/x/y {"status":"firing",…} without, or with a wrong, token.
  json alert = {{"status", "firing"}, {"alerts", json::array()}, {"groupKey", "g"}};
  Expect(Call("POST", "/alerts/alertmanager/prod", alert), 401, 16, "Bearer");
  Expect(Call("POST", "/alerts/alertmanager/prod", alert, {"Authorization: Bearer wrong-token-000000"}),
         401, 16, "wrong token");
  // An identity header is no substitute for the hook's token.
  Expect(Call("POST", "/alerts/alertmanager/prod", alert, {"X-Auth-Email: admin@example.com"}), 401, 16);
  EXPECT_EQ(Call("POST", "/alerts/alertmanager/prod", alert,
                 {absl::StrCat("Authorization: Bearer ", kTestAlertToken)}).status, 200);
}

// ---- Part 2: secrets bound to their destination (C5, M1, M9) and limits (M10) ----

// C5: PUT /providers/{id} {"credentials":{"host":"evil"}} kept the stored
// password and connected to evil with it. Now the password must come again,
// and nothing connects to the new host before that.
TEST_F(SecurityTest, C5_ProviderPasswordNeverFollowsANewHost) {
  std::string dsn = stack_->database().dsn();
  json creds = ProviderCredentials(dsn);
  creds["password"] = "not-needed-locally";
  json policy = {{"id", "sec-c5"},
                 {"steps", {{{"name", "auto"}, {"strategy", "auto"}, {"approve_if", "true"}}}}};
  ASSERT_EQ(As(kAdmin, "POST", "/policies", policy).status, 200);
  json provider = {{"type", "postgres"}, {"urn", "pg-c5"}, {"allowed_account_types", {"user"}},
                   {"credentials", creds},
                   {"resources", {{{"type", "table"}, {"policy", {{"id", "sec-c5"}, {"version", 1}}},
                                   {"roles", {{{"id", "reader"}, {"permissions", {"SELECT"}}}}}}}}};
  auto created = As(kAdmin, "POST", "/providers", provider);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.Json()["provider"]["id"];
  EXPECT_EQ(created.Json()["provider"]["config"]["credentials"]["password"], "*****");

  // The attacker's "database": a listener that must never be contacted.
  sluice::testing::SilentListener evil;
  std::string evil_port = std::to_string(evil.port());
  for (json password : {json(), json("*****")}) {
    json change = {{"credentials", {{"port", evil_port}}}};
    if (!password.is_null()) change["credentials"]["password"] = password;
    Expect(As(kAdmin, "PUT", "/providers/" + id, change), 400, 3,
           "credentials.password: must be supplied again when credentials.port changes");
  }
  EXPECT_FALSE(evil.WasContacted()) << "the server connected to the new host";
}

// M1: a ciphertext from a backup is not accepted as a secret, so the server
// cannot be made to decrypt it and send it somewhere.
TEST_F(SecurityTest, M1_ClientSuppliedCiphertextIsRefused) {
  for (const char* token : {"v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                            "v2:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}) {
    auto r = As("tester@example.com", "POST", "/receivers",
                json{{"name", "stolen"}, {"type", "slack"},
                     {"configurations", {{"token", token}, {"channel_name", "x"},
                                         {"api_url", "http://127.0.0.1:9/api"}}}});
    Expect(r, 400, 3, "configurations.token: looks like a stored ciphertext");
  }
}

// M9 + C5 (IAM): policy IAM headers are secrets, and a new IAM URL needs
// the secrets again.
TEST_F(SecurityTest, M9_PolicyIamSecretsAreMaskedAndBoundToTheUrl) {
  json policy = {{"id", "sec-iam"},
                 {"steps", {{{"name", "auto"}, {"strategy", "auto"}, {"approve_if", "true"}}}},
                 {"iam", {{"provider", "http"},
                          {"config", {{"url", "http://127.0.0.1:9/users/{user_id}"},
                                      {"headers", {{"X-Api-Key", "key-0123456789"}}},
                                      {"auth", {{"type", "bearer"}, {"token", "tok-0123456789"}}}}}}}};
  ASSERT_EQ(As(kAdmin, "POST", "/policies", policy).status, 200);
  auto got = As(kEve, "GET", "/policies/sec-iam");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Json()["policy"]["iam"]["config"]["headers"]["X-Api-Key"], "*****");
  EXPECT_EQ(got.body.find("key-0123456789"), std::string::npos);
  EXPECT_EQ(got.body.find("tok-0123456789"), std::string::npos);
  json moved = policy;
  moved.erase("id");
  moved["iam"]["config"]["url"] = "http://evil.example.com/{user_id}";
  moved["iam"]["config"]["auth"]["token"] = "*****";
  moved["iam"]["config"]["headers"]["X-Api-Key"] = "*****";
  Expect(As(kAdmin, "PUT", "/policies/sec-iam", moved), 400, 3, "must be supplied again");
  moved["iam"]["config"]["url"] = "file:///proc/self/environ#{user_id}";
  Expect(As(kAdmin, "PUT", "/policies/sec-iam", moved), 400, 3, "iam.config.url");
}

// M10: the gateway refuses oversized bodies before reading them whole.
TEST_F(SecurityTest, M10_GatewayRefusesOversizedBodies) {
  std::string big = "{\"message\": \"" + std::string(5 << 20, 'x') + "\"}";
  auto r = Http("POST", stack_->http_base() + "/api/v1beta1/echo", big,
                {"X-Auth-Email: eve@example.com"});
  Expect(r, 413, 8, "exceeds the limit");
  EXPECT_EQ(Call("GET", "/server-info", nullptr, {"X-Auth-Email: eve@example.com"}).status, 200);
}

// A gateway that does not hold the proxy token cannot speak for anyone.
TEST(SecurityGatewayTest, C1_GatewayWithoutTheTokenIsRefused) {
  Stack::Options opts;
  opts.gateway_without_token = true;
  auto stack = Stack::Start(opts);
  ASSERT_TRUE(stack.ok()) << stack.status();
  auto r = Http("GET", (*stack)->http_base() + "/api/v1beta1/server-info", "",
                {"X-Auth-Email: admin@example.com",
                 // A client guessing the header name gets nowhere either.
                 "X-Sluice-Proxy-Token: " + (*stack)->proxy_token()});
  EXPECT_EQ(r.status, 401) << r.body;
  EXPECT_EQ(r.Json().value("code", -1), 16) << r.body;
}

}  // namespace
}  // namespace sluice::integration
