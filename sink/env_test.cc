#include "sink/env.h"

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
