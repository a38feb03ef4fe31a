#include "sink/sinks/registry.h"

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::sink {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

TEST(RegistryTest, UnknownTypeNamesItAndListsKnownTypes) {
  Env env;
  NoopMetrics metrics;
  auto sink = CreateSink("kafka", SinkContext{&env, &metrics, nullptr});
  ASSERT_FALSE(sink.ok());
  EXPECT_EQ(sink.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sink.status().message(),
            "unknown SINK_TYPE \"kafka\"; known types: bigquery, clickhouse, elasticsearch, grpc, http, httpv2, influxdb, jdbc, log, mongodb, prometheus, redis");
}

TEST(RegistryTest, KnownTypesAreSorted) {
  auto types = KnownSinkTypes();
  EXPECT_TRUE(std::is_sorted(types.begin(), types.end()));
  EXPECT_EQ(types, (std::vector<std::string>{"bigquery", "clickhouse", "elasticsearch", "grpc", "http", "httpv2", "influxdb", "jdbc", "log", "mongodb",
                                             "prometheus", "redis"}));
}

TEST(RegistryTest, TypeIsCaseInsensitive) {
  Env env;
  NoopMetrics metrics;
  auto sink = CreateSink("LOG", SinkContext{&env, &metrics, nullptr});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_EQ((*sink)->Name(), "log");
}

TEST(RegistryTest, MissingVariableIsNamed) {
  Env env;
  NoopMetrics metrics;
  for (const auto& [type, variable] : std::vector<std::pair<std::string, std::string>>{
           {"http", "SINK_HTTP_SERVICE_URL"},
           {"httpv2", "SINK_HTTPV2_SERVICE_URL"},
           {"jdbc", "SINK_JDBC_URL"},
           {"grpc", "SINK_GRPC_SERVICE_HOST"}}) {
    auto sink = CreateSink(type, SinkContext{&env, &metrics, nullptr});
    ASSERT_FALSE(sink.ok()) << type;
    EXPECT_EQ(sink.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(sink.status().message(), HasSubstr(variable));
  }
}

}  // namespace
}  // namespace sluice::sink
