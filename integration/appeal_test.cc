// Access API part 2 end to end through the gateway (HTTP/JSON): appeals, the
// approval flow, grants, expiry, extension, bulk revoke, sluicectl, the IAM
// creator profile and requirements. Concurrency: appeal_concurrency_test.cc.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/appeal_fixture.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

TEST_F(AppealTest, TwoStepManualFlowGrantAndRevoke) {
  std::string rid = Setup("two-step", TwoStep());
  auto created = Appeal(rid);
  ASSERT_EQ(created.status, 200) << created.body;
  json a = created.Json()["appeals"][0];
  std::string id = a["id"];
  EXPECT_EQ(a["status"], "pending");
  EXPECT_EQ(a["account_id"], kAlice);
  EXPECT_EQ(a["policy_id"], "two-step");
  EXPECT_EQ(a["policy_version"], 1);
  EXPECT_EQ(a["resource"]["urn"], "noop-two-step");
  ASSERT_EQ(a["approvals"].size(), 2u);
  EXPECT_EQ(a["approvals"][0]["status"], "pending");
  EXPECT_EQ(a["approvals"][0]["approvers"], json({"owner@example.com"}));  // from details.owner
  EXPECT_EQ(a["approvals"][1]["status"], "blocked");

  ExpectCode(Call("POST", "/appeals/" + id + "/approvals/owner", json{{"action", "approve"}}, ""), 401, 16);
  ExpectCode(Call("POST", "/appeals/" + id + "/approvals/owner", json{{"action", "approve"}},
                  "mallory@example.com"), 403, 7);
  ExpectCode(Call("POST", "/appeals/" + id + "/approvals/lead", json{{"action", "approve"}},
                  "lead@example.com"), 400, 9, "blocked");
  ExpectCode(Call("POST", "/appeals/" + id + "/approvals/owner", json{{"action", "maybe"}},
                  "owner@example.com"), 400, 3);
  ExpectCode(Call("POST", "/appeals/" + id + "/approvals/nope", json{{"action", "approve"}},
                  "owner@example.com"), 404, 5);
  json step1 = Act(id, "owner", "approve", "owner@example.com")["appeal"];
  EXPECT_EQ(step1["status"], "pending");
  EXPECT_EQ(step1["approvals"][0]["status"], "approved");
  EXPECT_EQ(step1["approvals"][0]["actor"], "owner@example.com");
  EXPECT_EQ(step1["approvals"][1]["status"], "pending");
  ExpectCode(Call("POST", "/appeals/" + id + "/approvals/owner", json{{"action", "approve"}},
                  "owner@example.com"), 400, 9, "approved");
  json done = Act(id, "lead", "approve", "lead@example.com")["appeal"];
  EXPECT_EQ(done["status"], "approved");
  ASSERT_TRUE(done.contains("grant")) << done;
  std::string gid = done["grant"]["id"];
  EXPECT_EQ(done["grant"]["status"], "active");
  EXPECT_EQ(done["grant"]["is_permanent"], true);

  auto grant = Call("GET", "/grants/" + gid);
  ASSERT_EQ(grant.status, 200) << grant.body;
  EXPECT_EQ(grant.Json()["grant"]["appeal_id"], id);
  EXPECT_EQ(grant.Json()["grant"]["resource"]["id"], rid);
  EXPECT_EQ(grant.Json()["grant"]["appeal"]["id"], id);
  EXPECT_EQ(grant.Json()["grant"]["owner"], kAlice);

  ExpectCode(Call("PUT", "/appeals/" + id + "/revoke", json{{"reason", "done"}}, ""), 401, 16);
  // Only admins and the grant's own account revoke (finding H3).
  ExpectCode(Call("PUT", "/appeals/" + id + "/revoke", json{{"reason", "done"}}, "sec@example.com"),
             403, 7, "only admins");
  auto revoked = Call("PUT", "/appeals/" + id + "/revoke", json{{"reason", "done"}}, "admin@example.com");
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  // Guardian's RevokeAppeal: the appeal stays approved; its grant is inactive.
  EXPECT_EQ(revoked.Json()["appeal"]["status"], "approved");
  EXPECT_EQ(revoked.Json()["appeal"]["grant"]["status"], "inactive");
  EXPECT_EQ(revoked.Json()["appeal"]["revoked_by"], "admin@example.com");
  json g = Call("GET", "/grants/" + gid).Json()["grant"];
  EXPECT_EQ(g["status"], "inactive");
  EXPECT_EQ(g["revoked_by"], "admin@example.com");
  EXPECT_EQ(g["revoke_reason"], "done");
  ExpectCode(Call("PUT", "/appeals/" + id + "/revoke", json{{"reason", "again"}}), 400, 9,
             "no active grant");

  auto logs = Call("GET", "/audit-logs?action=appeal.approve&actor=lead@example.com");
  EXPECT_EQ(logs.Json()["total"], 1) << logs.body;
}

TEST_F(AppealTest, RejectCancelAndNotFound) {
  std::string rid = Setup("reject-cancel", TwoStep());
  std::string id = Appeal(rid).Json()["appeals"][0]["id"];
  json rejected = Act(id, "owner", "reject", "owner@example.com")["appeal"];
  EXPECT_EQ(rejected["status"], "rejected");
  EXPECT_EQ(rejected["approvals"][0]["status"], "rejected");
  EXPECT_EQ(rejected["approvals"][0]["reason"], "because");
  EXPECT_EQ(rejected["approvals"][1]["status"], "skipped");

  std::string id2 = Appeal(rid).Json()["appeals"][0]["id"];
  ExpectCode(Call("PUT", "/appeals/" + id2 + "/cancel", nullptr, "bob@example.com"), 403, 7);
  auto cancelled = Call("PUT", "/appeals/" + id2 + "/cancel");
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_EQ(cancelled.Json()["appeal"]["status"], "canceled");  // Guardian's spelling
  ExpectCode(Call("PUT", "/appeals/" + id2 + "/cancel"), 400, 9, "is canceled");
  // Guardian's values filter; the old ones are aliases, "terminated" a 400.
  const std::string mine = "/appeals?provider_urns=noop-reject-cancel&statuses=";
  for (const char* s : {"canceled", "cancelled"}) {
    json listed = Call("GET", mine + s).Json();
    ASSERT_EQ(listed["total"], 1) << s << ": " << listed;
    EXPECT_EQ(listed["appeals"][0]["id"], id2) << s;
    EXPECT_EQ(listed["appeals"][0]["status"], "canceled") << s;
  }
  EXPECT_EQ(Call("GET", mine + "rejected").Json()["appeals"][0]["id"], id);
  EXPECT_EQ(Call("GET", mine + "approved").Json()["total"], 0);
  ExpectCode(Call("GET", mine + "terminated"), 400, 3, "statuses=inactive");
  ExpectCode(Call("GET", "/appeals/not-a-uuid"), 400, 3);
  ExpectCode(Call("GET", "/appeals/00000000-0000-0000-0000-000000000000"), 404, 5);
  ExpectCode(Call("GET", "/grants/00000000-0000-0000-0000-000000000000"), 404, 5);
  ExpectCode(Call("GET", "/grants/00000000-0000-0000-0000-000000000000", nullptr, ""), 401, 16);
  auto got = Call("GET", "/appeals/" + id);
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.Json()["appeal"]["status"], "rejected");
}

TEST_F(AppealTest, AutoStepsAndWhen) {
  std::string auto_rid = Setup("auto", json::parse(R"({"steps": [
      {"name": "check", "strategy": "auto", "approve_if": "$appeal.role == \"viewer\"",
       "rejection_reason": "only viewers"}],
      "appeal": {"allow_permanent_access": true}})"));
  auto ok = Appeal(auto_rid, "viewer");
  ASSERT_EQ(ok.status, 200) << ok.body;
  json a = ok.Json()["appeals"][0];
  EXPECT_EQ(a["status"], "approved");  // fully approved at creation (Guardian #94, #390)
  EXPECT_EQ(a["approvals"][0]["status"], "approved");
  EXPECT_EQ(a["grant"]["status"], "active");
  json no = Appeal(auto_rid, "admin").Json()["appeals"][0];
  EXPECT_EQ(no["status"], "rejected");
  EXPECT_EQ(no["approvals"][0]["reason"], "only viewers");

  std::string soft_rid = Setup("auto-soft", json::parse(R"({"steps": [
      {"name": "check", "strategy": "auto", "approve_if": "false", "allow_failed": true},
      {"name": "admin", "strategy": "manual", "approvers": ["admin@example.com"],
       "when": "$appeal.role == \"admin\""},
      {"name": "owner", "strategy": "manual", "approvers": ["$appeal.resource.details.owner"]}],
      "appeal": {"allow_permanent_access": true}})"));
  json soft = Appeal(soft_rid, "viewer").Json()["appeals"][0];
  EXPECT_EQ(soft["status"], "pending");
  EXPECT_EQ(soft["approvals"][0]["status"], "skipped");  // allow_failed
  EXPECT_EQ(soft["approvals"][1]["status"], "skipped");  // when false
  EXPECT_EQ(soft["approvals"][2]["status"], "pending");
  json admin = Appeal(soft_rid, "admin").Json()["appeals"][0];
  EXPECT_EQ(admin["approvals"][1]["status"], "pending");  // when true
  EXPECT_EQ(admin["approvals"][2]["status"], "blocked");
  json fin = Act(soft["id"], "owner", "approve", "owner@example.com")["appeal"];
  EXPECT_EQ(fin["status"], "approved");
}

TEST_F(AppealTest, CreateValidationErrors) {
  std::string rid = Setup("validate", json::parse(R"({"steps": [
      {"name": "owner", "strategy": "manual", "approvers": ["$appeal.resource.details.owner"]}],
      "appeal": {"duration_options": [{"name": "day", "value": "24h"}]}})"));
  ExpectCode(Appeal(rid, "viewer", "24h", ""), 401, 16);
  ExpectCode(Appeal("00000000-0000-0000-0000-000000000000"), 404, 5);
  ExpectCode(Appeal(rid, "owner-of-all", "24h"), 400, 3, "role");
  ExpectCode(Appeal(rid, "viewer"), 400, 3, "options.duration");  // permanent not allowed
  ExpectCode(Appeal(rid, "viewer", "48h"), 400, 3, "policy's options");
  ExpectCode(Appeal(rid, "viewer", "a while"), 400, 3, "options.duration");
  ExpectCode(Appeal(rid, "viewer", "24h", kAlice, "bob@example.com"), 403, 7, "behalf");
  json sa = {{"account_type", "serviceAccount"}, {"resources", {{{"id", rid}, {"role", "viewer"},
             {"options", {{"duration", "24h"}}}}}}};
  ExpectCode(Call("POST", "/appeals", sa), 400, 3, "account_type");
  ASSERT_EQ(Appeal(rid, "viewer", "24h").status, 200);
  ExpectCode(Appeal(rid, "viewer", "24h"), 409, 6, "pending");
  // Two resources in one request: all or nothing.
  json two = {{"resources", {{{"id", rid}, {"role", "admin"}, {"options", {{"duration", "24h"}}}},
                             {{"id", rid}, {"role", "nope"}}}}};
  ExpectCode(Call("POST", "/appeals", two), 400, 3, "resources[1]");
  EXPECT_EQ(Call("GET", "/appeals?role=admin&provider_urns=noop-validate").Json()["total"], 0);

  // An approver expression yielding a non-email names the step.
  std::string bad = Setup("bad-approver", TwoStep(), "not an email");
  ExpectCode(Appeal(bad), 400, 3, "\"owner\"");
  // A deleted resource.
  std::string gone = Setup("deleted-res", TwoStep());
  ASSERT_EQ(Call("DELETE", "/resources/" + gone).status, 200);
  ExpectCode(Appeal(gone), 400, 9, "deleted");
  // The IAM profile fetch failing.
  json iam = TwoStep();
  iam["iam"] = {{"provider", "http"}, {"config", {{"url", "http://127.0.0.1:1/users/{user_id}"}}}};
  std::string iam_rid = Setup("iam-down", iam);
  ExpectCode(Appeal(iam_rid), 400, 9, "IAM");
}

TEST_F(AppealTest, TemporaryGrantExpires) {
  std::string rid = Setup("expiring", json::parse(R"({"steps": [
      {"name": "auto", "strategy": "auto", "approve_if": "true"}]})"));
  json a = Appeal(rid, "viewer", "1s").Json()["appeals"][0];
  ASSERT_EQ(a["status"], "approved") << a;
  EXPECT_EQ(a["grant"]["is_permanent"], false);
  ASSERT_TRUE(a["grant"].contains("expiration_date"));
  std::string gid = a["grant"]["id"];
  json g;
  for (int i = 0; i < 40; ++i) {
    absl::SleepFor(absl::Milliseconds(250));
    g = Call("GET", "/grants/" + gid).Json()["grant"];
    if (g["status"] == "inactive") break;
  }
  EXPECT_EQ(g["status"], "inactive") << g;
  EXPECT_EQ(g["revoke_reason"], "expired");
  EXPECT_EQ(g["revoked_by"], "system");
  json expired = Call("GET", "/appeals/" + a["id"].get<std::string>()).Json()["appeal"];
  EXPECT_EQ(expired["status"], "approved");  // stays approved; the grant expired
  EXPECT_EQ(expired["grant"]["status"], "inactive");
  EXPECT_GE(Call("GET", "/audit-logs?action=grant.expire&actor=system").Json()["total"].get<int>(), 1);
}

TEST_F(AppealTest, ExtensionInsideAndOutsideTheWindow) {
  std::string in = Setup("ext-in", json::parse(R"({"steps": [
      {"name": "auto", "strategy": "auto", "approve_if": "true"}],
      "appeal": {"allow_active_access_extension_in": "1h"}})"));
  json first = Appeal(in, "viewer", "30m").Json()["appeals"][0];
  ASSERT_EQ(first["status"], "approved");
  auto second = Appeal(in, "viewer", "30m");
  ASSERT_EQ(second.status, 200) << second.body;
  json s = second.Json()["appeals"][0];
  EXPECT_EQ(s["status"], "approved");
  EXPECT_NE(s["grant"]["id"], first["grant"]["id"]);
  json old = Call("GET", "/grants/" + first["grant"]["id"].get<std::string>()).Json()["grant"];
  EXPECT_EQ(old["status"], "inactive");
  EXPECT_NE(old["revoke_reason"].get<std::string>().find("extended"), std::string::npos);
  auto active = Call("GET", "/grants?statuses=active&resource_ids=" + in);
  EXPECT_EQ(active.Json()["total"], 1) << active.body;

  std::string out = Setup("ext-out", json::parse(R"({"steps": [
      {"name": "auto", "strategy": "auto", "approve_if": "true"}],
      "appeal": {"allow_active_access_extension_in": "10m"}})"));
  ASSERT_EQ(Appeal(out, "viewer", "1h").Json()["appeals"][0]["status"], "approved");
  ExpectCode(Appeal(out, "viewer", "1h"), 409, 6, "extension window");
}

TEST_F(AppealTest, BulkRevokeGrantListAndApprovers) {
  json policy = json::parse(R"({"steps": [{"name": "auto", "strategy": "auto", "approve_if": "true"}],
                                "appeal": {"allow_permanent_access": true, "allow_on_behalf": true}})");
  std::string r1 = Setup("bulk-1", policy), r2 = Setup("bulk-2", policy);
  for (const auto& r : {r1, r2}) {
    for (const char* who : {"bulk-a@example.com", "bulk-b@example.com"}) {
      ASSERT_EQ(Appeal(r, "viewer", "", kAlice, who).status, 200);
    }
  }
  // Grant list: filters, paging, order, total.
  auto page = Call("GET", "/grants?account_ids=bulk-a@example.com&account_ids=bulk-b@example.com"
                          "&statuses=active&size=3&order_by=created_at:asc");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.Json()["total"], 4);
  ASSERT_EQ(page.Json()["grants"].size(), 3u);
  json first = page.Json()["grants"][0];
  EXPECT_EQ(first["account_id"], "bulk-a@example.com");
  EXPECT_EQ(first["resource"]["id"], r1);
  auto rest = Call("GET", "/grants?account_ids=bulk-a@example.com&account_ids=bulk-b@example.com"
                          "&size=3&offset=3&order_by=created_at:asc");
  ASSERT_EQ(rest.Json()["grants"].size(), 1u);
  EXPECT_EQ(rest.Json()["total"], 4);
  auto desc = Call("GET", "/grants?account_ids=bulk-a@example.com&order_by=created_at:desc");
  EXPECT_EQ(desc.Json()["grants"][0]["resource"]["id"], r2);
  EXPECT_EQ(Call("GET", "/grants?q=bulk-b&provider_types=noop").Json()["total"], 2);
  EXPECT_EQ(Call("GET", "/grants?resource_types=noop&roles=viewer&account_ids=bulk-a@example.com")
                .Json()["total"], 2);
  ExpectCode(Call("GET", "/grants?order_by=color:asc"), 400, 3, "color");
  ExpectCode(Call("GET", "/grants?size=1001"), 400, 3, "size");

  ExpectCode(Call("POST", "/appeals/revoke", json::object()), 400, 3, "account_ids");
  auto bulk = Call("POST", "/appeals/revoke",
                   json{{"account_ids", {"bulk-a@example.com"}}, {"reason", "offboarding"}});
  ASSERT_EQ(bulk.status, 200) << bulk.body;
  EXPECT_EQ(bulk.Json()["appeals"].size(), 2u);
  json bulk_appeals = bulk.Json()["appeals"];
  for (const auto& a : bulk_appeals) {
    EXPECT_EQ(a["status"], "approved");
    EXPECT_EQ(a["grant"]["status"], "inactive");
    EXPECT_EQ(a["revoke_reason"], "offboarding");
  }
  // Query parameters work too (the body is empty here); account_ids is required.
  ExpectCode(Call("POST", "/appeals/revoke?provider_urns=noop-bulk-2&reason=moved", json::object()),
             400, 3, "account_ids");
  auto bulk_q = Call("POST",
                     "/appeals/revoke?account_ids=bulk-b@example.com&provider_urns=noop-bulk-2&"
                     "reason=moved",
                     json::object());
  ASSERT_EQ(bulk_q.status, 200) << bulk_q.body;
  EXPECT_EQ(bulk_q.Json()["appeals"].size(), 1u);  // bulk-b on r2
  EXPECT_EQ(Call("GET", "/grants?statuses=active&account_ids=bulk-b@example.com").Json()["total"], 1);

  // Approver edits on a pending manual step.
  std::string rid = Setup("approvers", TwoStep());
  std::string id = Appeal(rid).Json()["appeals"][0]["id"];
  auto added = Call("POST", "/appeals/" + id + "/approvals/owner/approvers", json{{"email", "x@example.com"}});
  ASSERT_EQ(added.status, 200) << added.body;
  EXPECT_EQ(added.Json()["appeal"]["approvals"][0]["approvers"].size(), 2u);
  ASSERT_EQ(Call("DELETE", "/appeals/" + id + "/approvals/owner/approvers/owner@example.com").status, 200);
  ExpectCode(Call("DELETE", "/appeals/" + id + "/approvals/owner/approvers/x@example.com"), 400, 9, "last");
  ExpectCode(Call("POST", "/appeals/" + id + "/approvals/lead/approvers", json{{"email", "y@example.com"}}),
             400, 9);
  auto mine = Call("GET", "/me/approvals?statuses=pending", nullptr, "x@example.com");
  ASSERT_EQ(mine.status, 200) << mine.body;
  EXPECT_EQ(mine.Json()["total"], 1);
  EXPECT_EQ(mine.Json()["approvals"][0]["appeal"]["id"], id);
  json fin = Act(id, "owner", "approve", "x@example.com")["appeal"];
  EXPECT_EQ(fin["approvals"][1]["status"], "pending");

  auto my_appeals = Call("GET", "/me/appeals?statuses=pending&size=1", nullptr, kAlice);
  ASSERT_EQ(my_appeals.status, 200);
  EXPECT_EQ(my_appeals.Json()["appeals"].size(), 1u);
  EXPECT_GE(my_appeals.Json()["total"].get<int>(), 1);
  auto by_provider = Call("GET", "/appeals?provider_urns=noop-approvers&statuses=pending");
  EXPECT_EQ(by_provider.Json()["total"], 1) << by_provider.body;
}

std::pair<int, std::string> Ctl(const Stack& stack, const std::string& email,
                                std::vector<std::string> args) {
  std::vector<std::string> argv = {Runfile("cli/sluicectl"), "--host", stack.grpc_target(),
                                   "--email", email, "--json"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto p = Process::Start(argv, stack.ClientEnv());
  if (!p.ok()) return {-1, std::string(p.status().message())};
  int code = (*p)->Wait(absl::Seconds(30));
  return {code, (*p)->Output()};
}

TEST_F(AppealTest, SluicectlAppealApprovalGrant) {
  std::string rid = Setup("cli-flow", TwoStep());
  std::string dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  std::ofstream(dir + "/appeal.yaml") << "resources:\n  - id: " << rid << "\n    role: viewer\n";
  auto [code, out] = Ctl(*stack_, kAlice, {"appeal", "create", "-f", dir + "/appeal.yaml"});
  ASSERT_EQ(code, 0) << out;
  std::string id = json::parse(out)["appeals"][0]["id"];
  std::tie(code, out) = Ctl(*stack_, "owner@example.com", {"approval", "approve", id, "owner"});
  ASSERT_EQ(code, 0) << out;
  std::tie(code, out) = Ctl(*stack_, "lead@example.com", {"approval", "reject", id, "owner"});
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("error: 7:"), std::string::npos) << out;
  std::tie(code, out) = Ctl(*stack_, "lead@example.com", {"approval", "approve", id, "lead", "--reason", "ok"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(json::parse(out)["appeal"]["status"], "approved");
  std::string gid = json::parse(out)["appeal"]["grant"]["id"];
  std::tie(code, out) = Ctl(*stack_, kAlice, {"appeal", "get", id});
  ASSERT_EQ(code, 0) << out;
  std::tie(code, out) = Ctl(*stack_, kAlice, {"appeal", "list", "--status", "approved", "--size", "500"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find(id), std::string::npos);
  // The old value still selects it (alias of "approved").
  std::tie(code, out) = Ctl(*stack_, kAlice, {"appeal", "list", "--status", "active", "--size", "500"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find(id), std::string::npos);
  std::tie(code, out) = Ctl(*stack_, kAlice, {"grant", "get", gid});
  ASSERT_EQ(code, 0) << out;
  std::tie(code, out) = Ctl(*stack_, kAlice, {"grant", "list", "--account", kAlice, "--status", "active"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find(gid), std::string::npos);
  std::tie(code, out) = Ctl(*stack_, kAlice, {"appeal", "revoke", id, "--reason", "cli"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(json::parse(out)["appeal"]["status"], "approved");
  EXPECT_EQ(json::parse(out)["appeal"]["grant"]["status"], "inactive");
  std::ofstream(dir + "/appeal2.yaml") << "resources:\n  - id: " << rid << "\n    role: admin\n";
  std::tie(code, out) = Ctl(*stack_, kAlice, {"appeal", "create", "-f", dir + "/appeal2.yaml"});
  ASSERT_EQ(code, 0) << out;
  std::string id2 = json::parse(out)["appeals"][0]["id"];
  std::tie(code, out) = Ctl(*stack_, kAlice, {"appeal", "cancel", id2});
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(json::parse(out)["appeal"]["status"], "canceled");
}

// A one-connection-at-a-time HTTP server answering every request with `body`
// and recording the requests it saw.
class TinyHttpServer {
 public:
  explicit TinyHttpServer(std::string body) : body_(std::move(body)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 8);
    thread_ = std::thread([this] {
      while (true) {
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        char buf[4096];
        ssize_t n = read(c, buf, sizeof(buf));
        if (n > 0) {
          std::lock_guard<std::mutex> lock(mu_);
          requests_.emplace_back(buf, n);
        }
        std::string resp = absl::StrCat("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                        "Content-Length: ", body_.size(),
                                        "\r\nConnection: close\r\n\r\n", body_);
        (void)!write(c, resp.data(), resp.size());
        close(c);
      }
    });
  }
  ~TinyHttpServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  std::string body_;
  int fd_ = -1, port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> requests_;
};

TEST_F(AppealTest, CreatorProfileFromIamDrivesApprovers) {
  TinyHttpServer iam(R"({"name": "Alice", "manager": {"email": "boss@example.com"}})");
  json policy = json::parse(R"({"steps": [
      {"name": "manager", "strategy": "manual", "approvers": ["$appeal.creator.manager_email"]}],
      "appeal": {"allow_permanent_access": true}})");
  policy["iam"] = {{"provider", "http"},
                   {"config", {{"url", absl::StrCat("http://127.0.0.1:", iam.port(), "/users/{user_id}")},
                               {"auth", {{"type", "bearer"}, {"token", "iam-token"}}}}},
                   {"schema", {{"manager_email", "manager.email"}, {"name", "name"}}}};
  std::string rid = Setup("iam-ok", policy);
  auto created = Appeal(rid);
  ASSERT_EQ(created.status, 200) << created.body;
  json a = created.Json()["appeals"][0];
  EXPECT_EQ(a["creator"]["manager_email"], "boss@example.com");
  EXPECT_EQ(a["creator"]["name"], "Alice");
  EXPECT_EQ(a["approvals"][0]["approvers"], json({"boss@example.com"}));
  auto reqs = iam.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_NE(reqs[0].find("GET /users/alice%40example.com"), std::string::npos) << reqs[0];
  EXPECT_NE(reqs[0].find("Authorization: Bearer iam-token"), std::string::npos) << reqs[0];
}

TEST_F(AppealTest, RequirementsCreateAdditionalAppeals) {
  std::string extra = Setup("req-extra", TwoStep());
  json policy = json::parse(R"({"steps": [{"name": "auto", "strategy": "auto", "approve_if": "true"}],
                                "appeal": {"allow_permanent_access": true}})");
  policy["requirements"] = {{{"on", {{"role", "viewer"}}},
                             {"appeals", {{{"resource", {{"id", extra}}}, {"role", "admin"}}}}}};
  std::string main_rid = Setup("req-main", policy);
  json a = Appeal(main_rid, "viewer").Json()["appeals"][0];
  ASSERT_EQ(a["status"], "approved") << a;
  auto extra_appeals = Call("GET", "/appeals?provider_urns=noop-req-extra&account_ids=" + kAlice);
  ASSERT_EQ(extra_appeals.Json()["total"], 1) << extra_appeals.body;
  json e = extra_appeals.Json()["appeals"][0];
  EXPECT_EQ(e["created_by"], kAlice);  // the requester's, as in Guardian
  EXPECT_EQ(e["role"], "admin");
  EXPECT_EQ(e["status"], "pending");
  // Not for other roles.
  ASSERT_EQ(Appeal(main_rid, "admin").Json()["appeals"][0]["status"], "approved");
  EXPECT_EQ(Call("GET", "/appeals?provider_urns=noop-req-extra&account_ids=" + kAlice).Json()["total"], 1);
}

// Issue 17: Guardian's policy questions (answered in
// details.__policy_questions) and self-approval rules, through the gateway.
TEST_F(AppealTest, QuestionsAndSelfApproval) {
  json policy = json::parse(R"({"steps": [{"name": "owner", "strategy": "manual",
      "approvers": ["$appeal.resource.details.owner"], "dont_allow_self_approval": true}],
      "appeal": {"allow_permanent_access": true, "questions": [
        {"key": "team", "question": "Which team?", "required": true, "description": "owning team"},
        {"key": "ticket", "question": "Ticket?"}]}})");
  std::string rid = Setup("p17-questions", policy);
  json stored = Call("GET", "/policies/p17-questions").Json()["policy"];
  EXPECT_EQ(stored["appeal"]["questions"][0]["description"], "owning team") << stored;
  EXPECT_EQ(stored["steps"][0]["dont_allow_self_approval"], true) << stored;
  // The required question unanswered, then answered with an empty string.
  ExpectCode(Appeal(rid), 400, 3, "details.__policy_questions.team");
  json body = {{"resources", {{{"id", rid}, {"role", "viewer"},
                               {"details", {{"__policy_questions", {{"team", ""}}}}}}}}};
  ExpectCode(Call("POST", "/appeals", body), 400, 3, "details.__policy_questions.team");
  body["resources"][0]["details"]["__policy_questions"]["team"] = "data";
  auto created = Call("POST", "/appeals", body);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.Json()["appeals"][0]["id"];
  json shown = Call("GET", "/appeals/" + id).Json()["appeal"];
  EXPECT_EQ(shown["details"]["__policy_questions"]["team"], "data") << shown;
  // The owner asking for themselves leaves the step without an approver.
  ExpectCode(Call("POST", "/appeals", body, "owner@example.com"), 400, 9, "step \"owner\"");
  // Both switches set contradict each other.
  policy["steps"][0]["allow_self_approval"] = true;
  policy["id"] = "p17-both";
  ExpectCode(Call("POST", "/policies", policy), 400, 3, "steps[0].dont_allow_self_approval");
}

// Issue 17: AdditionalAppeal.policy is honoured; a failed additional appeal
// fails a "hard" requirement's approval and is recorded by a "soft" one.
TEST_F(AppealTest, RequirementPolicyOverrideAndFailureModes) {
  std::string extra = Setup("p17-extra", TwoStep());
  json auto_policy = json::parse(R"({"steps": [{"name": "auto", "strategy": "auto",
      "approve_if": "true"}], "appeal": {"allow_permanent_access": true}})");
  auto main_with = [&](const std::string& id, const std::string& on_failure,
                       const std::string& override_id) {
    json policy = auto_policy;
    policy["requirements"] = {{{"on", {{"role", "viewer"}}},
                               {"on_failure", on_failure},
                               {"appeals", {{{"resource", {{"id", extra}}}, {"role", "viewer"},
                                             {"policy", {{"id", override_id}}}}}}}};
    return Setup(id, policy);
  };
  // p17-override-main's own auto policy also serves as the override, so the
  // additional appeal on the two-step resource is approved at once.
  std::string main_rid = main_with("p17-override-main", "hard", "p17-override-main");
  ASSERT_EQ(Appeal(main_rid).Json()["appeals"][0]["status"], "approved");
  json extra_appeals = Call("GET", "/appeals?provider_urns=noop-p17-extra&account_ids=" + kAlice).Json();
  ASSERT_EQ(extra_appeals["total"], 1) << extra_appeals;
  EXPECT_EQ(extra_appeals["appeals"][0]["status"], "approved");
  EXPECT_EQ(extra_appeals["appeals"][0]["policy_id"], "p17-override-main");
  // Hard, with an override naming no policy: nothing is created.
  std::string hard_rid = main_with("p17-hard", "hard", "p17-missing");
  ExpectCode(Appeal(hard_rid), 400, 9, "requirements[0].appeals[0]");
  EXPECT_EQ(Call("GET", "/appeals?provider_urns=noop-p17-hard").Json()["total"], 0);
  // Soft: the appeal is granted and the failure recorded on it.
  std::string soft_rid = main_with("p17-soft", "soft", "p17-missing");
  json soft = Appeal(soft_rid).Json()["appeals"][0];
  ASSERT_EQ(soft["status"], "approved") << soft;
  json again = Call("GET", "/appeals/" + soft["id"].get<std::string>()).Json()["appeal"];
  ASSERT_EQ(again["requirement_failures"].size(), 1u) << again;
  EXPECT_NE(again["requirement_failures"][0]["error"].get<std::string>().find("p17-missing"),
            std::string::npos) << again;
}

}  // namespace
}  // namespace sluice::integration
