// The redis sink against a real redis-server (Debian's), read back with
// redis-cli.
#include "sink/sinks/redis/redis_sink.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/redis_test_server.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/json_message.h"

namespace sluice::sink {
namespace {

// The redis (depot) sink's outcomes and the types depot gives them
// (error_type_table.h).
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // depot 85d7f860 src/main/java/com/gotocompany/depot/redis/util/RedisSinkUtils.java:47 (was SINK_4XX_ERROR, or SINK_RETRYABLE_ERROR for
      // LOADING/BUSY/...)
      {"error reply", ErrorType::kDefaultError},
      // depot 85d7f860 src/main/java/com/gotocompany/depot/redis/util/RedisSinkUtils.java:71 via RedisSink's catch of JedisConnectionException
      // (was SINK_RETRYABLE_ERROR). Not in the default ERROR_TYPES_FOR_RETRY: dropped
      // unless the operator adds it (README)
      {"connection refused or lost", ErrorType::kSinkNonRetryableError},
      // depot marks the record invalid (RedisRecord::isValid); per record
      {"record lacks a template field", ErrorType::kInvalidMessageError},
  });
  return *table;
}


using ::sluice::sink::testing::FindGenerated;

using ::sluice::sink::testing::RedisTestServer;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

Message Proto(int64_t offset, const std::string& order, const std::string& city) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(offset * 10);
  pb->set_status(sluice::sink::testing::ACTIVE);
  if (!city.empty()) pb->mutable_address()->set_city(city);
  Message m;
  m.offset = offset;
  m.value = pb->SerializeAsString();
  m.decoded = pb;
  return m;
}

Message Json(int64_t offset, const std::string& text) {
  return ::sluice::sink::testing::JsonMessage(offset, text);
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size() && !s.empty()) {
    size_t nl = s.find('\n', start);
    out.push_back(s.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

class RedisSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = RedisTestServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  absl::StatusOr<std::unique_ptr<Sink>> MakeSink(std::map<std::string, std::string> vars,
                                                 bool json = false) {
    vars["SINK_REDIS_URLS"] = server_->address();
    if (!json) vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
    env_ = Env(vars);
    SinkContext ctx{&env_, &metrics_, nullptr};
    if (!json) ctx.find_message = &FindGenerated;
    return CreateFromContext<RedisSink>(ctx);
  }

  std::unique_ptr<RedisTestServer> server_;
  Env env_;
  NoopMetrics metrics_;
};

TEST_F(RedisSinkTest, HashSetFromProtobufWithDepotMappingAndKeyTemplate) {
  auto sink = MakeSink({{"SINK_REDIS_DATA_TYPE", "HASHSET"},
                        {"SINK_REDIS_KEY_TEMPLATE", "order_%s,order_number"},
                        {"SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING",
                         R"({"amount":"AMOUNT","status":"STATUS","address.city":"CITY_%s,order_number"})"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Proto(1, "A", "Pune"), Proto(2, "B", "Goa")}).empty());
  EXPECT_THAT(Lines(server_->Cli({"HGETALL", "order_A"})),
              UnorderedElementsAre("AMOUNT", "10", "STATUS", "ACTIVE", "CITY_A", "Pune"));
  EXPECT_EQ(server_->Cli({"HGET", "order_B", "CITY_B"}), "Goa");
}

TEST_F(RedisSinkTest, FirehoseProtoIndexFormsWork) {
  auto sink = MakeSink({{"SINK_REDIS_DATA_TYPE", "LIST"},
                        {"SINK_REDIS_KEY_TEMPLATE", "Service_%s,1"},
                        {"SINK_REDIS_LIST_DATA_PROTO_INDEX", "2"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Proto(1, "A", ""), Proto(2, "A", "")}).empty());
  EXPECT_EQ(server_->Cli({"LRANGE", "Service_A", "0", "-1"}), "20\n10") << "LPUSH: newest first";
}

TEST_F(RedisSinkTest, JsonInputListAndKeyValueWithTtl) {
  auto list = MakeSink({{"SINK_REDIS_DATA_TYPE", "LIST"},
                        {"SINK_REDIS_KEY_TEMPLATE", "rides_%s,driver.name"},
                        {"SINK_REDIS_LIST_DATA_FIELD_NAME", "fare"},
                        {"SINK_REDIS_TTL_TYPE", "DURATION"},
                        {"SINK_REDIS_TTL_VALUE", "600"}},
                       /*json=*/true);
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_TRUE((*list)->Push({Json(0, R"({"driver":{"name":"ana"},"fare":12.5})")}).empty());
  EXPECT_EQ(server_->Cli({"LRANGE", "rides_ana", "0", "-1"}), "12.5");
  int ttl = std::stoi(server_->Cli({"TTL", "rides_ana"}));
  EXPECT_GT(ttl, 590);
  EXPECT_LE(ttl, 600);

  auto kv = MakeSink({{"SINK_REDIS_DATA_TYPE", "KEYVALUE"},
                      {"SINK_REDIS_KEY_TEMPLATE", "driver:%s,id"},
                      {"SINK_REDIS_KEY_VALUE_DATA_FIELD_NAME", "driver"},
                      {"SINK_REDIS_TTL_TYPE", "EXACT_TIME"},
                      {"SINK_REDIS_TTL_VALUE", "4102444800"}},
                     true);
  ASSERT_TRUE(kv.ok()) << kv.status();
  EXPECT_TRUE((*kv)->Push({Json(0, R"({"id":7,"driver":{"name":"ana"}})")}).empty());
  EXPECT_EQ(server_->Cli({"GET", "driver:7"}), R"({"name":"ana"})");
  EXPECT_EQ(server_->Cli({"EXPIRETIME", "driver:7"}), "4102444800");
}

TEST_F(RedisSinkTest, AnErrorReplyOrAMissingFieldFailsOnlyItsMessage) {
  auto sink = MakeSink({{"SINK_REDIS_DATA_TYPE", "LIST"},
                        {"SINK_REDIS_KEY_TEMPLATE", "k_%s,order"},
                        {"SINK_REDIS_LIST_DATA_FIELD_NAME", "v"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  server_->Cli({"SET", "k_str", "a string"});
  auto failed = (*sink)->Push({Json(0, R"({"order":"a","v":1})"), Json(1, R"({"order":"str","v":2})"),
                               Json(2, R"({"v":3})"), Json(3, R"({"order":"b","v":4})")});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].message.offset, 2) << "missing fields fail in Prepare, before the pipeline";
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("record lacks a template field"));
  EXPECT_THAT(failed[0].error, HasSubstr("\"order\" is absent"));
  EXPECT_EQ(failed[1].message.offset, 1);
  EXPECT_EQ(failed[1].error_type, FirehoseTypes()("error reply"));
  EXPECT_THAT(failed[1].error, HasSubstr("WRONGTYPE"));
  EXPECT_EQ(server_->Cli({"LRANGE", "k_a", "0", "-1"}), "1");
  EXPECT_EQ(server_->Cli({"LRANGE", "k_b", "0", "-1"}), "4");
}

TEST_F(RedisSinkTest, ALostServerIsRetryableAndNeverHangs) {
  auto sink = MakeSink({{"SINK_REDIS_DATA_TYPE", "KEYVALUE"},
                        {"SINK_REDIS_KEY_TEMPLATE", "k_%s,order"},
                        {"SINK_REDIS_KEY_VALUE_DATA_FIELD_NAME", "v"},
                        {"SINK_REDIS_SOCKET_TIMEOUT_MS", "500"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  server_->Kill();
  for (int attempt = 0; attempt < 2; ++attempt) {  // the send, then the reconnect
    auto failed = (*sink)->Push({Json(0, R"({"order":"a","v":1})")});
    ASSERT_EQ(failed.size(), 1u) << attempt;
    EXPECT_EQ(failed[0].error_type, FirehoseTypes()("connection refused or lost")) << failed[0].error;
  }
}

// SINK_REDIS_DEFAULT_FIELD_VALUE_ENABLE (default true), as depot's
// ProtoJsonProvider: a message-typed value is printed with
// includingDefaultValueFields, so unset scalars appear with their defaults.
TEST_F(RedisSinkTest, DefaultFieldValuesInMessageValuesFollowTheVariable) {
  Message m = Proto(1, "A", "Pune");
  auto pb = std::make_shared<TestMessage>(static_cast<const TestMessage&>(*m.decoded));
  pb->add_past_addresses()->set_city("Goa");
  m.decoded = pb;
  for (const char* enable : {"", "true", "false"}) {
    std::map<std::string, std::string> vars = {
        {"SINK_REDIS_DATA_TYPE", "HASHSET"},
        {"SINK_REDIS_KEY_TEMPLATE", absl::StrCat("d_", enable)},
        {"SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING",
         R"({"address":"ADDRESS","past_addresses":"PAST","amount":"AMOUNT"})"}};
    if (*enable) vars["SINK_REDIS_DEFAULT_FIELD_VALUE_ENABLE"] = enable;
    auto sink = MakeSink(vars);
    ASSERT_TRUE(sink.ok()) << sink.status();
    ASSERT_TRUE((*sink)->Push({m}).empty()) << enable;
    std::string key = absl::StrCat("d_", enable);
    bool with = std::string(enable) != "false";
    EXPECT_EQ(server_->Cli({"HGET", key, "ADDRESS"}),
              with ? R"({"city":"Pune","zip":0})" : R"({"city":"Pune"})") << enable;
    EXPECT_EQ(server_->Cli({"HGET", key, "PAST"}),
              with ? R"([{"city":"Goa","zip":0}])" : R"([{"city":"Goa"}])") << enable;
    EXPECT_EQ(server_->Cli({"HGET", key, "AMOUNT"}), "10") << enable;
  }
  auto bad = MakeSink({{"SINK_REDIS_DATA_TYPE", "HASHSET"},
                       {"SINK_REDIS_KEY_TEMPLATE", "d"},
                       {"SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING", R"({"amount":"AMOUNT"})"},
                       {"SINK_REDIS_DEFAULT_FIELD_VALUE_ENABLE", "maybe"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("SINK_REDIS_DEFAULT_FIELD_VALUE_ENABLE"));
}

TEST(RedisClusterTest, KeysAreRoutedBySlotAndAMovedSlotIsFollowed) {
  auto cluster = ::sluice::sink::testing::RedisTestCluster::Start(3);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Env env({{"SINK_REDIS_URLS", (*cluster)->node(0).address()},  // one seed is enough
           {"SINK_REDIS_DEPLOYMENT_TYPE", "CLUSTER"},
           {"SINK_REDIS_DATA_TYPE", "KEYVALUE"},
           {"SINK_REDIS_KEY_TEMPLATE", "k_%s,id"},
           {"SINK_REDIS_KEY_VALUE_DATA_FIELD_NAME", "v"}});
  NoopMetrics metrics;
  auto sink = CreateFromContext<RedisSink>(SinkContext{&env, &metrics, nullptr});
  ASSERT_TRUE(sink.ok()) << sink.status();
  std::vector<Message> batch;
  for (int i = 0; i < 30; ++i) batch.push_back(Json(i, absl::StrCat(R"({"id":)", i, R"(,"v":)", i * 2, "}")));
  EXPECT_TRUE((*sink)->Push(batch).empty());
  std::set<int> owners;
  for (int i = 0; i < 30; ++i) {
    std::string key = absl::StrCat("k_", i);
    int owner = (*cluster)->OwnerOf(key);
    ASSERT_GE(owner, 0) << key;
    owners.insert(owner);
    EXPECT_EQ((*cluster)->node(owner).Cli({"GET", key}), std::to_string(i * 2)) << key;
  }
  EXPECT_EQ(owners.size(), 3u) << "30 keys spread over the three masters";

  // Move the (empty) slot of a new key to another node: the sink's map is
  // stale, the old owner answers MOVED, and the sink follows it.
  std::string key = "k_moved";
  ASSERT_EQ(KeySlot(key), std::stoi((*cluster)->node(0).Cli({"CLUSTER", "KEYSLOT", key})))
      << "our CRC16 slot agrees with Redis";
  int from = (*cluster)->OwnerOf(key);
  int to = (from + 1) % 3;
  (*cluster)->MoveEmptySlot(KeySlot(key), to);
  ASSERT_EQ((*cluster)->OwnerOf(key), to);
  EXPECT_TRUE((*sink)->Push({Json(100, R"({"id":"moved","v":"here"})")}).empty());
  EXPECT_EQ((*cluster)->node(to).Cli({"GET", key}), "here");
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("{user1000}.followers")) << "hash tags";
  EXPECT_EQ(KeySlot("123456789"), 12739) << "the cluster spec's CRC16 check value 0x31C3 mod 16384";
}

TEST(RedisSinkConfigTest, ErrorsNameTheVariable) {
  NoopMetrics metrics;
  struct Case {
    std::map<std::string, std::string> vars;
    const char* want;
  } cases[] = {
      {{}, "SINK_REDIS_URLS"},
      {{{"SINK_REDIS_URLS", "nohostport"}}, "SINK_REDIS_URLS: \"nohostport\" is not host:port"},
      {{{"SINK_REDIS_URLS", "h:1,h2"}}, "SINK_REDIS_URLS: \"h2\" is not host:port"},
      {{{"SINK_REDIS_URLS", "h:1"}}, "SINK_REDIS_KEY_TEMPLATE"},
      {{{"SINK_REDIS_URLS", "h:1"}, {"SINK_REDIS_KEY_TEMPLATE", "k_%s"}}, "1 %s placeholder(s) but 0 field(s)"},
      {{{"SINK_REDIS_URLS", "h:1"}, {"SINK_REDIS_KEY_TEMPLATE", "k_%d,a"}}, "other than %s"},
      {{{"SINK_REDIS_URLS", "h:1"}, {"SINK_REDIS_KEY_TEMPLATE", "k"}}, "HASHSET needs SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING"},
      {{{"SINK_REDIS_URLS", "h:1"}, {"SINK_REDIS_KEY_TEMPLATE", "k"}, {"SINK_REDIS_DATA_TYPE", "LIST"}},
       "SINK_REDIS_LIST_DATA_FIELD_NAME"},
      {{{"SINK_REDIS_URLS", "h:1"}, {"SINK_REDIS_KEY_TEMPLATE", "k_%s,1"}}, "is a proto field number, but the input is JSON"},
      {{{"SINK_REDIS_URLS", "h:1"}, {"SINK_REDIS_KEY_TEMPLATE", "k"}, {"SINK_REDIS_DATA_TYPE", "KEYVALUE"},
        {"SINK_REDIS_KEY_VALUE_DATA_FIELD_NAME", "v"}, {"SINK_REDIS_TTL_TYPE", "DURATION"}},
       "SINK_REDIS_TTL_VALUE must be > 0"},
  };
  for (const Case& c : cases) {
    Env env(c.vars);
    auto config = RedisSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
    ASSERT_FALSE(config.ok()) << c.want;
    EXPECT_THAT(config.status().message(), HasSubstr(c.want));
  }
  std::map<std::string, std::string> proto = {
      {"SINK_REDIS_URLS", "h:1"},
      {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
      {"SINK_REDIS_KEY_TEMPLATE", "k_%s,nope"},
      {"SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING", R"({"amount":"A"})"}};
  Env env(proto);
  auto config = RedisSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(),
              HasSubstr("SINK_REDIS_KEY_TEMPLATE: \"nope\" names no field of sluice.sink.testing.TestMessage"));
}

// depot's RedisSinkConfig defaults (goto/depot, where goto and raystack
// Firehose differ): connect 5000 ms, socket 10000 ms.
TEST(RedisSinkConfigTest, TimeoutsDefaultToDepots) {
  NoopMetrics metrics;
  std::map<std::string, std::string> vars = {{"SINK_REDIS_URLS", "h:1"},
                                             {"SINK_REDIS_KEY_TEMPLATE", "k"},
                                             {"SINK_REDIS_DATA_TYPE", "LIST"},
                                             {"SINK_REDIS_LIST_DATA_FIELD_NAME", "v"}};
  Env env(vars);
  auto config = RedisSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->connect_timeout_ms, 5000);
  EXPECT_EQ(config->socket_timeout_ms, 10000);
  vars["SINK_REDIS_CONNECTION_TIMEOUT_MS"] = "700";
  vars["SINK_REDIS_SOCKET_TIMEOUT_MS"] = "900";
  Env set(vars);
  config = RedisSinkConfig::FromEnv(set, SinkContext{&set, &metrics, nullptr});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->connect_timeout_ms, 700);
  EXPECT_EQ(config->socket_timeout_ms, 900);
}

}  // namespace
}  // namespace sluice::sink
