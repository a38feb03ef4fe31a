// A JSON topic end to end (issue 14, "JSON input"): the real sluice-sink reads
// INPUT_SCHEMA_DATA_TYPE=json records from the dev broker, filters them with
// each engine (JEXL over JSON, FILTER_ENGINE=JSON with a JSON Schema) and
// delivers them to the log sink, a real HTTP server and a real PostgreSQL.
#include <signal.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "integration/sink_harness.h"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/pg_test_db.h"

namespace sluice::integration {
namespace {

using sink::testing::HttpTestServer;
using sink::testing::PgTestDb;

// Records 0 and 2 have driver "ana" and are the ones both filters keep; 4 is
// not JSON and goes to the log DLQ, so the group still commits past it.
const std::vector<std::string> kRecords = {
    R"({"order_number":"A","driver":{"name":"ana"},"fare":12.5,"tags":["x"]})",
    R"({"order_number":"B","driver":{"name":"bo"},"fare":3})",
    R"({"order_number":"C","driver":{"name":"ana"},"fare":7})",
    R"({"order_number":"D","fare":20})",
    R"({"order_number":)",
    R"({"order_number":"E","driver":{"name":"cy"}})"};

struct Engine {
  const char* name;
  std::map<std::string, std::string> vars;
};

std::vector<Engine> Engines() {
  return {{"jexl",
           {{"FILTER_ENGINE", "JEXL"},
            {"FILTER_DATA_SOURCE", "MESSAGE"},
            {"FILTER_JEXL_EXPRESSION",
             "message.hasDriver() && message.getDriver().getName() == 'ana'"}}},
          {"json",
           {{"FILTER_ENGINE", "JSON"},
            {"FILTER_DATA_SOURCE", "MESSAGE"},
            {"FILTER_JSON_SCHEMA",
             R"({"required":["driver"],"properties":{"driver":{"properties":{"name":{"const":"ana"}}}}})"}}}};
}

class SinkJson : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test: the broker's address is read from its output file.
    dir_ = TempDir(absl::StrCat("sink_json_",
                                ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    broker_ = DevBroker::Start({"rides:1"}, dir_);
    ProduceRaw(broker_.bootstrap, "rides", 0, kRecords);
  }

  // Runs the sink with `extra` until the group has committed every record,
  // then stops it with SIGTERM; returns its stdout.
  std::string RunSink(const std::string& group, std::map<std::string, std::string> extra) {
    auto env = JsonSinkEnv(broker_.bootstrap, "rides", group);
    env["DLQ_SINK_ENABLE"] = "true";
    env["ERROR_TYPES_FOR_DLQ"] = "DESERIALIZATION_ERROR";
    env["ERROR_TYPES_FOR_FAILING"] = "INVALID_MESSAGE_ERROR";
    for (auto& [k, v] : extra) env[k] = v;
    auto sink = StartSink(env, dir_ + "/" + group);
    bool done = WaitFor(
        [&] {
          return Committed(broker_.bootstrap, group, "rides", 1)[0] ==
                 static_cast<int64_t>(kRecords.size());
        },
        absl::Seconds(30));
    EXPECT_TRUE(done) << group << ": " << sink->Stderr();
    std::string err = sink->Stderr();
    EXPECT_NE(err.find("DLQ: topic=rides partition=0 offset=4"), std::string::npos)
        << group << ": " << err;
    sink->Signal(SIGTERM);
    EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << group << ": " << sink->Stderr();
    return sink->Output();
  }

  std::string dir_;
  DevBroker broker_;
};

TEST_F(SinkJson, LogSinkPrintsTheKeptRecords) {
  for (const Engine& e : Engines()) {
    std::string out = RunSink(absl::StrCat("log-", e.name), e.vars);
    EXPECT_NE(out.find(R"("order_number":"A")"), std::string::npos) << e.name << ": " << out;
    EXPECT_NE(out.find(R"("order_number":"C")"), std::string::npos) << e.name << ": " << out;
    for (const char* dropped : {"\"B\"", "\"D\"", "\"E\""}) {
      EXPECT_EQ(out.find(dropped), std::string::npos) << e.name << " kept " << dropped << ": " << out;
    }
  }
}

TEST_F(SinkJson, HttpSinkSendsTheKeptRecordsFieldByField) {
  for (const Engine& e : Engines()) {
    auto http = HttpTestServer::Start();
    ASSERT_TRUE(http.ok()) << http.status();
    auto vars = e.vars;
    vars["SINK_TYPE"] = "http";
    vars["SINK_HTTP_SERVICE_URL"] = (*http)->url() + "/rides";
    vars["SINK_HTTP_DATA_FORMAT"] = "json";
    vars["SINK_HTTP_JSON_BODY_TEMPLATE"] = R"({"order":"$.order_number","driver":"$.driver.name"})";
    RunSink(absl::StrCat("http-", e.name), vars);
    // One request per batch; how the consumer splits A..E into batches is
    // timing, so the records sent are the elements of every body, in order.
    std::vector<std::string> sent;
    for (const auto& r : (*http)->requests()) {
      auto body = nlohmann::ordered_json::parse(r.body, nullptr, /*allow_exceptions=*/false);
      ASSERT_TRUE(body.is_array()) << e.name << ": " << r.body;
      for (const auto& element : body) sent.push_back(element.dump());
    }
    EXPECT_THAT(sent, ::testing::ElementsAre(R"({"order":"A","driver":"ana"})",
                                             R"({"order":"C","driver":"ana"})"))
        << e.name;
  }
}

TEST_F(SinkJson, JdbcSinkWritesTheKeptRecordsIntoPostgres) {
  auto db = PgTestDb::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Query("CREATE TABLE rides (engine text, order_number text, driver text, "
                           "fare numeric, tags jsonb, PRIMARY KEY (engine, order_number))")
                  .ok());
  for (const Engine& e : Engines()) {
    ASSERT_TRUE((*db)->Query(absl::StrCat("ALTER TABLE rides ALTER COLUMN engine SET DEFAULT '",
                                          e.name, "'"))
                    .ok());
    auto vars = e.vars;
    vars["SINK_TYPE"] = "jdbc";
    vars["SINK_JDBC_URL"] = (*db)->dsn();
    vars["SINK_JDBC_TABLE_NAME"] = "rides";
    vars["INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING"] =
        R"({"order_number":"order_number","driver":{"name":"driver"},"fare":"fare","tags":"tags"})";
    RunSink(absl::StrCat("jdbc-", e.name), vars);
    auto rows = (*db)->Query(absl::StrCat(
        "SELECT order_number, driver, fare::text, coalesce(tags->>0, '-') FROM rides WHERE engine = '",
        e.name, "' ORDER BY order_number"));
    ASSERT_TRUE(rows.ok()) << rows.status();
    EXPECT_EQ(*rows, (std::vector<std::vector<std::string>>{{"A", "ana", "12.5", "x"},
                                                           {"C", "ana", "7", "-"}}))
        << e.name;
  }
}

}  // namespace
}  // namespace sluice::integration
