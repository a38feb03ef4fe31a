// SINK_REDIS_AUTH_USERNAME / SINK_REDIS_AUTH_PASSWORD against a real
// redis-server protected with `requirepass` or an ACL user: every connection
// the sink opens (standalone, cluster seeds, routed nodes, MOVED targets,
// reconnects) authenticates, and a refusal names the variable, never the
// password.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sink/sinks/redis/redis_sink.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/json_message.h"
#include "sink/sinks/testing/redis_test_server.h"

namespace sluice::sink {
namespace {

// The redis sink's connection outcomes and depot's types (error_type_table.h;
// the others are in redis_sink_test.cc).
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // depot 85d7f860 src/main/java/com/gotocompany/depot/redis/util/RedisSinkUtils.java:71 via RedisSink's catch of JedisConnectionException
      // (was SINK_RETRYABLE_ERROR)
      {"connection lost", ErrorType::kSinkNonRetryableError},
      // the same: sluice fails the reconnect as a connection failure; whether
      // Jedis raises a refused AUTH as JedisConnectionException was not checked
      // (was SINK_RETRYABLE_ERROR)
      {"reconnect refused (AUTH)", ErrorType::kSinkNonRetryableError},
  });
  return *table;
}


using ::sluice::sink::testing::RedisTestCluster;
using ::sluice::sink::testing::RedisTestServer;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPassword[] = "s3cret-Pa55";

Message Json(int64_t offset, const std::string& text) {
  return ::sluice::sink::testing::JsonMessage(offset, text);
}

// redis-cli as the default user with kPassword.
std::string AuthCli(const RedisTestServer& s, std::vector<std::string> args) {
  args.insert(args.begin(), {"-a", kPassword, "--no-auth-warning"});
  return s.Cli(args);
}

class RedisAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = RedisTestServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  // requirepass for the default user.
  void RequirePassword() { ASSERT_EQ(server_->Cli({"CONFIG", "SET", "requirepass", kPassword}), "OK"); }

  // An ACL user "writer" with kPassword allowed everything, and the default
  // user switched off, so that only "writer" can write.
  void AclUserOnly() {
    ASSERT_EQ(server_->Cli({"ACL", "SETUSER", "writer", "on", absl::StrCat(">", kPassword), "~*", "&*",
                            "+@all"}),
              "OK");
    ASSERT_EQ(server_->Cli({"ACL", "SETUSER", "default", "off"}), "OK");
  }

  absl::StatusOr<std::unique_ptr<Sink>> MakeSink(std::map<std::string, std::string> vars) {
    vars["SINK_REDIS_URLS"] = server_->address();
    vars["SINK_REDIS_DATA_TYPE"] = "KEYVALUE";
    vars["SINK_REDIS_KEY_TEMPLATE"] = "k_%s,id";
    vars["SINK_REDIS_KEY_VALUE_DATA_FIELD_NAME"] = "v";
    env_ = Env(vars);
    return CreateFromContext<RedisSink>(SinkContext{&env_, &metrics_, nullptr});
  }

  std::unique_ptr<RedisTestServer> server_;
  Env env_;
  NoopMetrics metrics_;
};

TEST_F(RedisAuthTest, RequirepassWritesWithThePassword) {
  RequirePassword();
  auto sink = MakeSink({{"SINK_REDIS_AUTH_PASSWORD", kPassword}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Json(0, R"({"id":1,"v":"one"})")}).empty());
  EXPECT_EQ(AuthCli(*server_, {"GET", "k_1"}), "one");
}

TEST_F(RedisAuthTest, PasswordIsTrimmedAndEmptyMeansUnsetAsInDepot) {
  RequirePassword();
  auto sink = MakeSink({{"SINK_REDIS_AUTH_PASSWORD", absl::StrCat("  ", kPassword, " ")},
                        {"SINK_REDIS_AUTH_USERNAME", ""}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Json(0, R"({"id":1,"v":"one"})")}).empty());
  EXPECT_EQ(AuthCli(*server_, {"GET", "k_1"}), "one");
}

TEST_F(RedisAuthTest, RequirepassWithoutThePasswordFailsStartNamingTheVariable) {
  RequirePassword();
  auto sink = MakeSink({});
  ASSERT_FALSE(sink.ok());
  EXPECT_THAT(sink.status().message(), HasSubstr("SINK_REDIS_AUTH_PASSWORD"));
  EXPECT_THAT(sink.status().message(), HasSubstr("NOAUTH"));
}

TEST_F(RedisAuthTest, AWrongPasswordFailsStartNamingTheVariableNotThePassword) {
  RequirePassword();
  auto sink = MakeSink({{"SINK_REDIS_AUTH_PASSWORD", "wrong-guess"}});
  ASSERT_FALSE(sink.ok());
  EXPECT_EQ(sink.status().code(), absl::StatusCode::kPermissionDenied) << sink.status();
  EXPECT_THAT(sink.status().message(), HasSubstr("SINK_REDIS_AUTH_PASSWORD"));
  EXPECT_THAT(sink.status().message(), Not(HasSubstr("wrong-guess")));
}

TEST_F(RedisAuthTest, APasswordForAServerWithoutOneFailsStart) {
  auto sink = MakeSink({{"SINK_REDIS_AUTH_PASSWORD", kPassword}});
  ASSERT_FALSE(sink.ok());
  EXPECT_THAT(sink.status().message(), HasSubstr("SINK_REDIS_AUTH_PASSWORD"));
  EXPECT_THAT(sink.status().message(), Not(HasSubstr(kPassword)));
}

TEST_F(RedisAuthTest, AclUserWritesWithUsernameAndPassword) {
  AclUserOnly();
  auto sink = MakeSink({{"SINK_REDIS_AUTH_USERNAME", "writer"}, {"SINK_REDIS_AUTH_PASSWORD", kPassword}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Json(0, R"({"id":2,"v":"two"})")}).empty());
  EXPECT_EQ(server_->Cli({"--user", "writer", "--pass", kPassword, "--no-auth-warning", "GET", "k_2"}), "two");
}

TEST_F(RedisAuthTest, AclUserWithAWrongNameOrPasswordFailsStartNamingBoth) {
  AclUserOnly();
  for (auto [user, pass] : std::vector<std::pair<std::string, std::string>>{
           {"writer", "wrong-guess"}, {"reader", kPassword}}) {
    auto sink = MakeSink({{"SINK_REDIS_AUTH_USERNAME", user}, {"SINK_REDIS_AUTH_PASSWORD", pass}});
    ASSERT_FALSE(sink.ok()) << user;
    EXPECT_EQ(sink.status().code(), absl::StatusCode::kPermissionDenied) << sink.status();
    EXPECT_THAT(sink.status().message(), HasSubstr("SINK_REDIS_AUTH_USERNAME"));
    EXPECT_THAT(sink.status().message(), HasSubstr("SINK_REDIS_AUTH_PASSWORD"));
    EXPECT_THAT(sink.status().message(), Not(HasSubstr(pass)));
  }
}

TEST_F(RedisAuthTest, AclUserWithoutCredentialsFailsStart) {
  AclUserOnly();  // the default user is off: NOAUTH
  auto sink = MakeSink({});
  ASSERT_FALSE(sink.ok());
  EXPECT_THAT(sink.status().message(), HasSubstr("SINK_REDIS_AUTH_PASSWORD"));
}

TEST_F(RedisAuthTest, AReconnectAuthenticatesAgainAndARefusalThenFailsTheBatch) {
  RequirePassword();
  auto sink = MakeSink({{"SINK_REDIS_AUTH_PASSWORD", kPassword}, {"SINK_REDIS_SOCKET_TIMEOUT_MS", "500"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  ASSERT_TRUE((*sink)->Push({Json(0, R"({"id":1,"v":"one"})")}).empty());
  server_->Kill();
  ASSERT_TRUE(server_->Restart().ok());  // no requirepass until set again
  RequirePassword();
  bool written = false;
  for (int attempt = 0; attempt < 2 && !written; ++attempt) {  // lost connection, then reconnect
    auto failed = (*sink)->Push({Json(1, R"({"id":3,"v":"three"})")});
    written = failed.empty();
    if (!written) {
      EXPECT_EQ(failed[0].error_type, FirehoseTypes()("connection lost")) << failed[0].error;
    }
  }
  EXPECT_TRUE(written);
  EXPECT_EQ(AuthCli(*server_, {"GET", "k_3"}), "three");

  // The server comes back with another password: the reconnect is refused,
  // the batch fails (SINK_NON_RETRYABLE_ERROR, as depot), naming the variable.
  server_->Kill();
  ASSERT_TRUE(server_->Restart().ok());
  ASSERT_EQ(server_->Cli({"CONFIG", "SET", "requirepass", "rotated"}), "OK");
  std::string last;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto failed = (*sink)->Push({Json(2, R"({"id":4,"v":"four"})")});
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0].error_type, FirehoseTypes()("reconnect refused (AUTH)")) << failed[0].error;
    last = failed[0].error;
  }
  EXPECT_THAT(last, HasSubstr("SINK_REDIS_AUTH_PASSWORD"));
  EXPECT_THAT(last, Not(HasSubstr(kPassword)));
}

// Every node of a protected cluster: the seed (CLUSTER SLOTS), the node a key
// routes to, and the node a MOVED reply names are each opened with AUTH.
TEST(RedisClusterAuthTest, EveryNodeAndMovedTargetAuthenticates) {
  auto cluster = RedisTestCluster::Start(3);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  // A key served by node 1, so that neither it nor the MOVED target (node 2)
  // is the seed (node 0) the sink connected to first.
  std::string key;
  for (int i = 0; i < 200 && key.empty(); ++i) {
    std::string k = absl::StrCat("k_", i);
    if ((*cluster)->OwnerOf(k) == 1) key = k;
  }
  ASSERT_FALSE(key.empty());
  std::string to_id = (*cluster)->node(2).Cli({"CLUSTER", "MYID"});
  for (int n = 0; n < 3; ++n) {
    ASSERT_EQ((*cluster)->node(n).Cli({"CONFIG", "SET", "requirepass", kPassword}), "OK");
  }
  std::map<std::string, std::string> vars = {{"SINK_REDIS_URLS", (*cluster)->node(0).address()},
                                             {"SINK_REDIS_DEPLOYMENT_TYPE", "CLUSTER"},
                                             {"SINK_REDIS_DATA_TYPE", "KEYVALUE"},
                                             {"SINK_REDIS_KEY_TEMPLATE", "%s,id"},
                                             {"SINK_REDIS_KEY_VALUE_DATA_FIELD_NAME", "v"}};
  NoopMetrics metrics;
  {
    Env env(vars);  // no password: start fails, naming the variable
    auto sink = CreateFromContext<RedisSink>(SinkContext{&env, &metrics, nullptr});
    ASSERT_FALSE(sink.ok());
    EXPECT_THAT(sink.status().message(), HasSubstr("SINK_REDIS_AUTH_PASSWORD"));
  }
  vars["SINK_REDIS_AUTH_PASSWORD"] = kPassword;
  Env env(vars);
  auto sink = CreateFromContext<RedisSink>(SinkContext{&env, &metrics, nullptr});
  ASSERT_TRUE(sink.ok()) << sink.status();
  // Move the key's (empty) slot from node 1 to node 2 behind the sink's back.
  std::string slot = AuthCli((*cluster)->node(0), {"CLUSTER", "KEYSLOT", key});
  for (int n = 0; n < 3; ++n) {
    AuthCli((*cluster)->node(n), {"CLUSTER", "SETSLOT", slot, "NODE", to_id});
  }
  auto failed = (*sink)->Push({Json(0, absl::StrCat(R"({"id":")", key, R"(","v":"moved"})"))});
  EXPECT_TRUE(failed.empty()) << failed[0].error;
  EXPECT_EQ(AuthCli((*cluster)->node(2), {"GET", key}), "moved");
}

}  // namespace
}  // namespace sluice::sink
