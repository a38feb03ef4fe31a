// Jobs on demand against a real stack (issue 17, section 4): the RunJob
// route through the gateway (admins only, unknown names listed, counts
// reported), `sluicectl job run` and `sluice-server job run`.
#include <gtest/gtest.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include <fstream>

#include "integration/notification_helpers.h"
#include "integration/suite_stack.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

class JobsTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() {
    // No periodic cleanup during the test: only the on-demand runs delete.
    StartSuiteStack("notification:\n  workers: 0\n  cleanup_interval_seconds: 0\n");
  }
  // POST /api/v1beta1/jobs/{name}/run as `email`.
  static HttpResponse RunJob(const std::string& name, const std::string& email) {
    return Http("POST", stack_->http_base() + "/api/v1beta1/jobs/" + name + "/run", "{}",
                {"X-Auth-Email: " + email});
  }
  // Inserts a notification with one published message last updated
  // `age_hours` ago, straight into the database.
  static void InsertPublished(int age_hours) {
    soci::session sql(soci::postgresql, stack_->database().dsn());
    long long id = 0;
    sql << "INSERT INTO notifications (template) VALUES ('system-default') RETURNING id",
        soci::into(id);
    sql << "INSERT INTO notification_messages (notification_id, receiver_id, receiver_type, "
           "status, expire_at, updated_at) VALUES (:id, 1, 'http', 'published', now(), "
           "now() - make_interval(hours => :h))",
        soci::use(id), soci::use(age_hours);
  }
  // Runs a binary of the stack with `args`; returns {exit code, output}.
  static std::pair<int, std::string> Run(std::vector<std::string> argv,
                                         std::map<std::string, std::string> env) {
    static int runs = 0;
    auto p = Process::Start(argv, env, TempPath("jobs-" + std::to_string(++runs) + ".log"));
    if (!p.ok()) return {-1, std::string(p.status().message())};
    int code = (*p)->Wait(absl::Seconds(60));
    return {code, (*p)->Output()};
  }
};

TEST_F(JobsTest, AdminRunsCleanupThroughTheGatewayAndSeesItsCounts) {
  InsertPublished(24 * 8);  // older than the default 168 h retention
  InsertPublished(24 * 8);
  InsertPublished(1);  // kept
  auto r = RunJob("cleanup_queue", "tester@example.com");  // a notification admin
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.Json();
  EXPECT_EQ(body["name"], "cleanup_queue");
  EXPECT_EQ(body["skipped"], false);
  EXPECT_EQ(body["message"], "done");
  EXPECT_EQ(U64(body["counts"]["messages_deleted"]), 2u) << r.body;
  r = RunJob("cleanup_queue", "tester@example.com");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(U64(r.Json()["counts"]["messages_deleted"]), 0u) << r.body;
}

TEST_F(JobsTest, NonAdminsAreRefusedAndUnknownNamesListed) {
  auto r = RunJob("revoke_expired_grants", "mallory@example.com");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_NE(r.body.find("access.admins"), std::string::npos) << r.body;
  // A notification admin is not an access admin.
  r = RunJob("revoke_expired_grants", "tester@example.com");
  EXPECT_EQ(r.status, 403) << r.body;
  // An unknown name: names are listed to admins only.
  r = RunJob("nope", "mallory@example.com");
  EXPECT_EQ(r.status, 403) << r.body;
  r = RunJob("nope", "alice@example.com");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("known: cleanup_queue, expiring_grant_notification, fetch_resources, "
                        "pending_approvals_reminder, reconcile, revoke_expired_grants"),
            std::string::npos)
      << r.body;
}

TEST_F(JobsTest, SluicectlAndTheServerBinaryRunJobs) {
  auto [rc, out] = Run({Runfile("cli/sluicectl"), "--host", stack_->grpc_target(), "--email",
                        "alice@example.com", "--json", "job", "run", "revoke_expired_grants"},
                       stack_->ClientEnv());
  ASSERT_EQ(rc, 0) << out;
  json body = json::parse(out.substr(out.find('{')));
  EXPECT_EQ(body["name"], "revoke_expired_grants");
  EXPECT_EQ(U64(body["counts"]["grants_expired"]), 0u) << out;
  std::tie(rc, out) = Run({Runfile("cli/sluicectl"), "--host", stack_->grpc_target(), "--email",
                           "mallory@example.com", "job", "run", "revoke_expired_grants"},
                          stack_->ClientEnv());
  EXPECT_NE(rc, 0) << out;
  EXPECT_NE(out.find("admins only (access.admins)"), std::string::npos) << out;

  // `sluice-server job run` against the same database, then exits.
  InsertPublished(24 * 8);
  std::string config = TempPath("jobs-server.yaml");
  std::ofstream(config) << stack_->EffectiveConfig();
  std::map<std::string, std::string> env = stack_->ServerEnv();
  std::tie(rc, out) =
      Run({Runfile("server/sluice-server"), "job", "run", "cleanup_queue", "--config", config}, env);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("cleanup_queue: done messages_deleted=1"), std::string::npos) << out;
  std::tie(rc, out) =
      Run({Runfile("server/sluice-server"), "job", "run", "nope", "--config", config}, env);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("known: cleanup_queue"), std::string::npos) << out;
}

}  // namespace
}  // namespace sluice::integration
