#include "sink/env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sluice::sink {
namespace {

TEST(Env, DefaultsApplyToUnsetAndEmpty) {
  Env env({{"A", ""}, {"B", "7"}});
  EXPECT_EQ(*env.GetInt("A", 3), 3);
  EXPECT_EQ(*env.GetInt("B", 3), 7);
  EXPECT_EQ(*env.GetInt("C", 5), 5);
}

TEST(Env, ErrorsNameTheVariable) {
  Env env({{"SOURCE_KAFKA_POLL_TIMEOUT_MS", "soon"}, {"X", "yes"}});
  auto i = env.GetInt("SOURCE_KAFKA_POLL_TIMEOUT_MS", 1);
  ASSERT_FALSE(i.ok());
  EXPECT_NE(i.status().message().find("SOURCE_KAFKA_POLL_TIMEOUT_MS"), std::string::npos);
  EXPECT_FALSE(env.GetBool("X", false).ok());
  auto r = env.Require("SINK_TYPE");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "SINK_TYPE is required");
}

TEST(Env, HostPortListsNameTheVariableAndTheBadEntry) {
  Env env({{"A", " h1:1, h2:65535 ,"}, {"B", "h1:1,h2"}, {"C", " , "}, {"D", "u@h:1"}, {"E", "h:0"}});
  auto a = env.GetHostPorts("A", "localhost:1");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a, (std::vector<std::string>{"h1:1", "h2:65535"}));
  EXPECT_EQ(env.GetHostPorts("B", "localhost:1").status().message(),
            "B: \"h2\" is not host:port (e.g. localhost:1)");
  EXPECT_EQ(env.GetHostPorts("C", "x:1").status().message(), "C is empty");
  EXPECT_FALSE(env.GetHostPorts("D", "x:1").ok());
  EXPECT_FALSE(env.GetHostPorts("E", "x:1").ok());
  EXPECT_EQ(env.GetHostPorts("F", "x:1").status().message(), "F is required");
  EXPECT_TRUE(IsHostPort("[::1]:6379"));
}

TEST(Env, BoolsAndPrefixes) {
  Env env({{"T", "TRUE"},
           {"SOURCE_KAFKA_CONSUMER_CONFIG_FETCH_MIN_BYTES", "1"},
           {"SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS", "10"}});
  EXPECT_TRUE(*env.GetBool("T", false));
  auto p = env.WithPrefix("SOURCE_KAFKA_CONSUMER_CONFIG_");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p["FETCH_MIN_BYTES"], "1");
}

TEST(Env, SecretNames) {
  EXPECT_TRUE(IsSecretName("SINK_JDBC_PASSWORD"));
  EXPECT_TRUE(IsSecretName("SOURCE_KAFKA_CONSUMER_CONFIG_SASL_JAAS_CONFIG"));
  EXPECT_FALSE(IsSecretName("SINK_JDBC_URL"));
}

}  // namespace
}  // namespace sluice::sink

namespace sluice::sink {
namespace {

TEST(Env, TypedDurationListAndPortGetters) {
  Env env({{"A_MS", "1500"}, {"BAD_MS", "-1"}, {"L", " a, b ,,c "}, {"P", "8080"}, {"BAD_P", "0"}});
  EXPECT_EQ(*env.GetDuration("A_MS", absl::Seconds(1)), absl::Milliseconds(1500));
  EXPECT_EQ(*env.GetDuration("UNSET_MS", absl::Seconds(1)), absl::Seconds(1));
  EXPECT_THAT(env.GetDuration("BAD_MS", absl::ZeroDuration()).status().message(),
              ::testing::HasSubstr("BAD_MS must be a number of milliseconds"));
  EXPECT_THAT(env.GetList("L"), ::testing::ElementsAre("a", "b", "c"));
  EXPECT_TRUE(env.GetList("UNSET").empty());
  EXPECT_EQ(*env.RequirePort("P"), 8080);
  EXPECT_THAT(env.RequirePort("BAD_P").status().message(),
              ::testing::HasSubstr("BAD_P must be a port in 1-65535"));
  EXPECT_THAT(env.RequirePort("UNSET_P").status().message(), ::testing::HasSubstr("UNSET_P is required"));
}

}  // namespace
}  // namespace sluice::sink
