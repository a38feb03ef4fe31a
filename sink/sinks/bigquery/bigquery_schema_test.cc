// depot's proto → BigQuery schema and row mapping, JSON rows, metadata
// columns and schema merging.
#include "sink/sinks/bigquery/bigquery_schema.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sink/sinks/testdata/legacy_message.pb.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"

namespace sluice::sink::bigquery {
namespace {

using ::sluice::sink::testing::LegacyMessage;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

const nlohmann::json* Field(const nlohmann::json& fields, const std::string& name) {
  for (const auto& f : fields) {
    if (f["name"] == name) return &f;
  }
  return nullptr;
}

TEST(ProtoSchemaTest, FollowsDepotsTypeMapping) {
  nlohmann::json s = ProtoSchema(TestMessage::descriptor());
  auto type = [&](const std::string& n) { return (*Field(s, n))["type"].get<std::string>() + "/" +
                                                 (*Field(s, n))["mode"].get<std::string>(); };
  EXPECT_EQ(type("order_number"), "STRING/NULLABLE");
  EXPECT_EQ(type("amount"), "INTEGER/NULLABLE");
  EXPECT_EQ(type("status"), "STRING/NULLABLE");
  EXPECT_EQ(type("event_timestamp"), "TIMESTAMP/NULLABLE");
  EXPECT_EQ(type("tags"), "STRING/REPEATED");
  EXPECT_EQ(type("counts"), "RECORD/REPEATED");
  EXPECT_EQ(type("price"), "FLOAT/NULLABLE");
  EXPECT_EQ(type("paid"), "BOOLEAN/NULLABLE");
  EXPECT_EQ(type("payload"), "BYTES/NULLABLE");
  EXPECT_EQ(type("past_addresses"), "RECORD/REPEATED");
  EXPECT_EQ((*Field(s, "address"))["fields"],
            nlohmann::json::parse(R"([{"name":"city","type":"STRING","mode":"NULLABLE"},
                                      {"name":"zip","type":"INTEGER","mode":"NULLABLE"}])"));
  EXPECT_EQ((*Field(s, "counts"))["fields"].size(), 2u);  // key, value
  EXPECT_EQ((*Field(ProtoSchema(LegacyMessage::descriptor()), "id"))["mode"], "NULLABLE");
}

TEST(ProtoRowTest, RendersSetFieldsAsInsertAllJson) {
  TestMessage m;
  m.set_order_number("A");
  m.set_amount(9007199254740993);  // beyond double precision: kept exact
  m.set_status(sluice::sink::testing::ACTIVE);
  m.mutable_address()->set_city("Pune");
  m.mutable_event_timestamp()->set_seconds(1714557600);
  m.mutable_event_timestamp()->set_nanos(5000000);
  m.add_tags("x");
  (*m.mutable_counts())["k"] = 3;
  m.set_payload("\x01\x02");
  auto row = ProtoRow(m);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(*row, R"({"order_number":"A","amount":9007199254740993,"status":"ACTIVE","address":{"city":"Pune"},)"
                  R"("event_timestamp":"2024-05-01T10:00:00.005Z","tags":["x"],"counts":[{"key":"k","value":3}],)"
                  R"("payload":"AQI="})");
  m.set_order_number("quote\" and \\ and \n");
  EXPECT_EQ(nlohmann::json::parse(*ProtoRow(m))["order_number"], "quote\" and \\ and \n");
  m.set_price(std::nan(""));
  EXPECT_THAT(ProtoRow(m).status().message(), HasSubstr("price"));
}

TEST(ProtoRowTest, AStringThatIsNotUtf8FailsNamingTheField) {
  LegacyMessage m;  // proto2: strings are not checked when parsing
  m.set_id("ok");
  m.add_tags("bad \xff");
  EXPECT_THAT(ProtoRow(m).status().message(), HasSubstr("tags"));
}

TEST(JsonRowTest, StringsByDefaultOrTypes) {
  auto rec = nlohmann::json::parse(R"({"a":"x","n":5,"f":1.5,"b":true,"o":{"k":1},"z":null})");
  EXPECT_EQ(JsonRow(rec, true)->dump(), R"({"a":"x","b":"true","f":"1.5","n":"5","o":"{\"k\":1}"})");
  EXPECT_EQ(JsonRow(rec, false)->dump(), R"({"a":"x","b":true,"f":1.5,"n":5,"o":"{\"k\":1}"})");
  EXPECT_FALSE(JsonRow(nlohmann::json::array(), true).ok());
  EXPECT_EQ(JsonColumn("n", rec["n"], false)["type"], "INTEGER");
  EXPECT_EQ(JsonColumn("f", rec["f"], false)["type"], "FLOAT");
  EXPECT_EQ(JsonColumn("n", rec["n"], true)["type"], "STRING");
}

TEST(MetadataTest, ColumnsFlatOrUnderANamespace) {
  auto cols = ParseMetadataColumns("message_offset=integer,message_topic=string,load_time=timestamp", "V");
  ASSERT_TRUE(cols.ok()) << cols.status();
  EXPECT_EQ(MetadataSchema(*cols, "")[0]["type"], "INTEGER");
  nlohmann::json ns = MetadataSchema(*cols, "kafka");
  ASSERT_EQ(ns.size(), 1u);
  EXPECT_EQ(ns[0]["type"], "RECORD");
  EXPECT_EQ(ns[0]["fields"].size(), 3u);
  Message m;
  m.topic = "t";
  m.offset = 7;
  nlohmann::json row = nlohmann::json::object();
  AddMetadata(&row, m, *cols, "kafka", TimestampText(absl::FromUnixSeconds(0)));
  EXPECT_EQ(row.dump(), R"({"kafka":{"load_time":"1970-01-01T00:00:00.000Z","message_offset":7,"message_topic":"t"}})");
  EXPECT_THAT(ParseMetadataColumns("bogus=string", "V").status().message(), HasSubstr("V"));
  EXPECT_THAT(ParseMetadataColumns("message_offset", "V").status().message(), HasSubstr("name=type"));
  EXPECT_THAT(ParseMetadataColumns("message_offset=wat", "V").status().message(), HasSubstr("BigQuery type"));
}

TEST(MergeSchemaTest, AddsOnlyMissingFieldsAndNeverRequiredOnes) {
  auto have = nlohmann::json::parse(
      R"([{"name":"a","type":"STRING","mode":"NULLABLE"},
          {"name":"r","type":"RECORD","mode":"NULLABLE","fields":[{"name":"x","type":"STRING","mode":"NULLABLE"}]}])");
  auto want = nlohmann::json::parse(
      R"([{"name":"a","type":"INTEGER","mode":"NULLABLE"},
          {"name":"r","type":"RECORD","mode":"NULLABLE","fields":[{"name":"y","type":"STRING","mode":"NULLABLE"}]},
          {"name":"b","type":"STRING","mode":"REQUIRED"}])");
  EXPECT_TRUE(MergeSchema(&have, want));
  EXPECT_EQ(have[0]["type"], "STRING");  // existing columns are never changed
  EXPECT_EQ(have[1]["fields"].size(), 2u);
  EXPECT_EQ(have[2]["mode"], "NULLABLE");
  EXPECT_FALSE(MergeSchema(&have, want));
}

}  // namespace
}  // namespace sluice::sink::bigquery
