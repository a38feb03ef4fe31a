// Access events as notifications, end to end (issue 17, section 1): appeals
// live their whole life through the gateway while two sluice-server replicas
// share the database, and real HTTP receivers (labelled with each person's
// email, plus one subscribed by labels) capture every notification: created,
// step approved, approved, rejected, revoked (by an admin and by expiry),
// expiring and pending reminders, each exactly once.
#include <fstream>
#include <map>

#include <grpcpp/grpcpp.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "integration/appeal_fixture.h"
#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"
#include "proto/sluice/access/v1beta1/appeal.grpc.pb.h"

namespace sluice::integration {
namespace {

using json = nlohmann::json;

constexpr char kConfig[] =
    "access:\n"
    "  grant_expiry_interval: 300ms\n"
    "  notifications:\n"
    "    poll_interval: 200ms\n"
    "    pending_approval_age: 1ms\n"
    "    expiring_grant_interval: 0s\n"
    "    pending_reminder_interval: 0s\n"
    "notification:\n"
    "  poll_interval_ms: 100\n";

const std::string kOwner = "o@example.com", kSecurity = "s@example.com",
                  kRequester = "r@example.com";

class AccessNotificationsTest : public AppealTest {
 protected:
  static void SetUpTestSuite() {
    StartSuiteStack(kConfig);
    replica_grpc_port_ = FreePort();
    replica_metrics_port_ = FreePort();
    replica_ = StartReplica().release();
  }
  static void TearDownTestSuite() {
    delete replica_;
    replica_ = nullptr;
    AppealTest::TearDownTestSuite();
  }
  // A second sluice-server on the same database (its own ports): its
  // dispatcher competes with the first one's for the same outbox.
  static std::unique_ptr<Process> StartReplica() {
    int grpc_port = replica_grpc_port_;
    std::string config = TempPath("replica.yaml");
    std::ofstream(config) << stack_->EffectiveConfig();
    auto p = Process::Start(
        {Runfile("server/sluice-server"), "--grpc_port", std::to_string(grpc_port),
         "--metrics_port", std::to_string(replica_metrics_port_), "--config", config},
        stack_->ServerEnv(),
        TempPath("replica.log"));
    EXPECT_TRUE(p.ok()) << p.status();
    if (!p.ok()) return nullptr;
    EXPECT_TRUE(WaitForPort(grpc_port, absl::Seconds(60)).ok()) << (*p)->Output();
    return std::move(*p);
  }
  void SetUp() override {
    fake_ = FakeHttpServer::Start();
    ASSERT_NE(fake_, nullptr);
  }
  // An http receiver posting to /<path>, labelled `labels`.
  uint64_t Receiver(const std::string& path, json labels) {
    return api_.CreateReceiver({{"name", "rcv-" + path}, {"type", "http"}, {"labels", labels},
                         {"configurations", {{"url", fake_->Url("/" + path)}}}});
  }
  static HttpResponse RunJob(const std::string& name) {
    return Http("POST", stack_->http_base() + "/api/v1beta1/jobs/" + name + "/run", "{}",
                As("admin@example.com"));
  }
  // (event, appeal_id or grant_id) of every request captured at /<path>.
  std::multiset<std::pair<std::string, std::string>> Captured(const std::string& path) {
    std::multiset<std::pair<std::string, std::string>> out;
    for (const auto& r : fake_->Requests("/" + path)) {
      json j = r.Json();
      std::string subject = j["data"].value("grant_id", "");
      if (subject.empty()) subject = j["data"].value("appeal_id", "");
      out.insert({j.value("event", ""), subject});
    }
    return out;
  }
  // Waits until the outbox and the message queue are drained: every event
  // settled, every message published (or failed).
  static void WaitDrained() {
    soci::session sql(soci::postgresql, stack_->database().dsn());
    absl::Time deadline = absl::Now() + absl::Seconds(30);
    long long open = 1;
    while (absl::Now() < deadline) {
      sql << "SELECT (SELECT count(*) FROM access_events WHERE done_at IS NULL) + (SELECT "
             "count(*) FROM notification_messages WHERE status NOT IN ('published', 'failed', "
             "'expired'))",
          soci::into(open);
      if (open == 0) return;
      absl::SleepFor(absl::Milliseconds(50));
    }
    ADD_FAILURE() << open << " events or messages still open";
  }
  static std::string GrantOf(const std::string& appeal_id) {
    auto r = Call("GET", "/appeals/" + appeal_id, nullptr, "admin@example.com");
    json j = r.Json();
    if (j.contains("appeal")) j = j["appeal"];
    EXPECT_TRUE(j.contains("grant") && j["grant"].is_object()) << r.body;
    return j.contains("grant") && j["grant"].is_object() ? j["grant"].value("id", "") : "";
  }

  // POST /appeals on the replica, over gRPC as `as`: its commit wakes the
  // replica's own dispatcher. Returns the appeal id.
  static std::string AppealOnReplica(const std::string& resource_id, const std::string& as) {
    auto stub = sluice::access::v1beta1::AppealService::NewStub(grpc::CreateChannel(
        absl::StrCat("127.0.0.1:", replica_grpc_port_), grpc::InsecureChannelCredentials()));
    sluice::access::v1beta1::CreateAppealRequest req;
    auto* r = req.add_resources();
    r->set_id(resource_id);
    r->set_role("viewer");
    sluice::access::v1beta1::CreateAppealResponse resp;
    auto st = stub->CreateAppeal(stack_->GrpcContext(as).get(), req, &resp);
    EXPECT_TRUE(st.ok()) << st.error_message();
    return resp.appeals_size() > 0 ? resp.appeals(0).id() : "";
  }
  // sluice_access_events_total{outcome="sent"} on the metrics port.
  static int SentBy(int metrics_port) {
    std::string body = Http("GET", absl::StrCat("http://127.0.0.1:", metrics_port, "/metrics")).body;
    const std::string key = "sluice_access_events_total{outcome=\"sent\"} ";
    size_t at = body.find(key);
    return at == std::string::npos ? 0 : std::atoi(body.c_str() + at + key.size());
  }

  static inline Process* replica_ = nullptr;
  static inline int replica_grpc_port_ = 0, replica_metrics_port_ = 0;
  NotificationApi api_{stack_};
  std::unique_ptr<FakeHttpServer> fake_;
};

TEST_F(AccessNotificationsTest, AnAppealsWholeLifeNotifiesEachPersonExactlyOnce) {
  ASSERT_NE(replica_, nullptr);
  for (const auto& [path, email] : std::map<std::string, std::string>{
           {"owner", kOwner}, {"security", kSecurity}, {"requester", kRequester}}) {
    Receiver(path, {{"email", email}});
  }
  // Operators may route by labels instead: approvals of noop resources.
  uint64_t sub_id = Receiver("sub", {{"team", "audit"}});
  api_.CreateSubscription({{"urn", "access-approved-noop"},
                           {"receivers", {{{"id", sub_id}}}},
                           {"match", {{"event", "appeal.approved"}, {"provider_type", "noop"}}}});
  std::string rid = Setup("notify", json::parse(R"({"steps": [
      {"name": "owner", "strategy": "manual", "approvers": ["o@example.com"]},
      {"name": "security", "strategy": "manual", "approvers": ["s@example.com"]}],
      "appeal": {"allow_permanent_access": true}})"));

  // 1. Approved through both steps, then revoked by an admin.
  std::string a1 = Appeal(rid, "viewer", "", kRequester).Json()["appeals"][0]["id"];
  Act(a1, "owner", "approve", kOwner);
  Act(a1, "security", "approve", kSecurity);
  std::string g1 = GrantOf(a1);
  ASSERT_EQ(Call("PUT", "/appeals/" + a1 + "/revoke", json{{"reason", "left"}},
                 "admin@example.com").status, 200);
  // 2. Rejected at the first step.
  std::string a2 = Appeal(rid, "admin", "", kRequester).Json()["appeals"][0]["id"];
  Act(a2, "owner", "reject", kOwner);
  // 3. Granted for 72h: the expiring reminder (3-day threshold), twice run.
  std::string a3 = Appeal(rid, "admin", "72h", kRequester).Json()["appeals"][0]["id"];
  Act(a3, "owner", "approve", kOwner);
  Act(a3, "security", "approve", kSecurity);
  std::string g3 = GrantOf(a3);
  auto job = RunJob("expiring_grant_notification");
  ASSERT_EQ(job.status, 200) << job.body;
  EXPECT_EQ(U64(job.Json()["counts"]["reminders_written"]), 1u) << job.body;
  EXPECT_EQ(U64(RunJob("expiring_grant_notification").Json()["counts"]["reminders_written"]), 0u);
  // 4. Granted for 1s: the expiry job revokes it.
  std::string a4 = Appeal(rid, "viewer", "1s", kRequester).Json()["appeals"][0]["id"];
  Act(a4, "owner", "approve", kOwner);
  Act(a4, "security", "approve", kSecurity);
  std::string g4 = GrantOf(a4);
  // 5. Left pending (other requesters, on the second replica): the
  // pending-approval reminder, twice run.
  std::string a5 = AppealOnReplica(rid, "p@example.com");
  std::string a6 = AppealOnReplica(rid, "q@example.com");
  EXPECT_EQ(U64(RunJob("pending_approvals_reminder").Json()["counts"]["reminders_written"]), 2u);
  EXPECT_EQ(U64(RunJob("pending_approvals_reminder").Json()["counts"]["reminders_written"]), 0u);

  using Got = std::multiset<std::pair<std::string, std::string>>;
  Got owner = {{"appeal.created", a1}, {"appeal.created", a2}, {"appeal.created", a3},
               {"appeal.created", a4}, {"appeal.created", a5}, {"appeal.pending_reminder", a5},
               {"appeal.created", a6}, {"appeal.pending_reminder", a6}};
  Got security = {{"appeal.step_approved", a1}, {"appeal.step_approved", a3},
                  {"appeal.step_approved", a4}};
  Got requester = {{"appeal.approved", a1}, {"grant.revoked", g1},   {"appeal.rejected", a2},
                   {"appeal.approved", a3}, {"grant.expiring", g3}, {"appeal.approved", a4},
                   {"grant.revoked", g4}};
  Got sub = {{"appeal.approved", a1}, {"appeal.approved", a3}, {"appeal.approved", a4}};
  ASSERT_TRUE(fake_->WaitForRequests("/requester", requester.size(), absl::Seconds(30)));
  ASSERT_TRUE(fake_->WaitForRequests("/owner", owner.size(), absl::Seconds(30)));
  WaitDrained();
  EXPECT_EQ(Captured("owner"), owner);
  EXPECT_EQ(Captured("security"), security);
  EXPECT_EQ(Captured("requester"), requester);
  EXPECT_EQ(Captured("sub"), sub);
  // Both replicas delivered (the second at least the events its own commits
  // woke it for), and together exactly the events settled as sent.
  int first = SentBy(stack_->metrics_port()), second = SentBy(replica_metrics_port_);
  EXPECT_GT(first, 0);
  EXPECT_GT(second, 0);
  soci::session sql(soci::postgresql, stack_->database().dsn());
  long long sent = 0;
  sql << "SELECT count(*) FROM access_events WHERE outcome = 'sent'", soci::into(sent);
  EXPECT_EQ(first + second, sent);
  EXPECT_EQ(sent, 18);  // 8 to the owner, 3 to security, 7 to the requester

  // What a person reads: Guardian's wording, rendered by the default template.
  for (const auto& r : fake_->Requests("/requester")) {
    json j = r.Json();
    if (j["event"] == "grant.revoked" && j["data"]["grant_id"] == g1) {
      EXPECT_EQ(j["text"], "Your access to *noop-notify (noop: noop-notify)* with role *viewer* has been "
                           "revoked by admin@example.com: left");
    }
    if (j["event"] == "grant.revoked" && j["data"]["grant_id"] == g4) {
      EXPECT_EQ(j["data"]["revoked_by"], "system");
    }
  }
}

}  // namespace
}  // namespace sluice::integration
