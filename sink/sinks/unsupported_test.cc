#include "sink/sinks/unsupported.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::sink {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using Vars = std::map<std::string, std::string>;

TEST(UnsupportedTypesTest, EachIsRefusedWithOneMessageListingTheSupportedTypes) {
  for (const auto& vars : std::vector<std::map<std::string, std::string>>{
           {{"SINK_TYPE", "BLOB"}},
           {{"SINK_TYPE", "bigtable"}},
           {{"SINK_TYPE", "MaxCompute"}},
           {{"SINK_TYPE", "log"}, {"DLQ_SINK_ENABLE", "true"}, {"DLQ_WRITER_TYPE", "BLOB_STORAGE"},
            {"DLQ_BLOB_STORAGE_TYPE", "OSS"}},
           {{"SINK_TYPE", "log"}, {"DLQ_SINK_ENABLE", "TRUE"}, {"DLQ_WRITER_TYPE", "blob_storage"},
            {"DLQ_BLOB_STORAGE_TYPE", "cos"}},
       }) {
    absl::Status s = RefuseUnsupportedTypes(Env(vars));
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << vars.begin()->second;
    EXPECT_THAT(s.message(),
                AllOf(HasSubstr("is not supported by sluice-sink"), HasSubstr("packaged"),
                      HasSubstr("supported SINK_TYPE: bigquery, clickhouse, elasticsearch, grpc, "
                                "http, httpv2, influxdb, jdbc, log, mongodb, prometheus, redis"),
                      HasSubstr("DLQ_WRITER_TYPE: KAFKA, LOG, BLOB_STORAGE (DLQ_BLOB_STORAGE_TYPE: GCS, S3)")));
  }
  EXPECT_THAT(RefuseUnsupportedTypes(Env(Vars{{"SINK_TYPE", "blob"}})).message(),
              HasSubstr("SINK_TYPE=BLOB"));
}

TEST(UnsupportedTypesTest, SupportedOrUnusedSettingsPass) {
  EXPECT_TRUE(RefuseUnsupportedTypes(Env(Vars{{"SINK_TYPE", "http"}})).ok());
  EXPECT_TRUE(RefuseUnsupportedTypes(Env(Vars{{"SINK_TYPE", "httpv2"}})).ok());
  // Firehose reads DLQ_BLOB_STORAGE_TYPE only for an enabled blob DLQ.
  EXPECT_TRUE(RefuseUnsupportedTypes(
                  Env(Vars{{"SINK_TYPE", "log"}, {"DLQ_BLOB_STORAGE_TYPE", "OSS"}}))
                  .ok());
  EXPECT_TRUE(RefuseUnsupportedTypes(Env(Vars{{"SINK_TYPE", "log"},
                                          {"DLQ_SINK_ENABLE", "true"},
                                          {"DLQ_WRITER_TYPE", "BLOB_STORAGE"},
                                          {"DLQ_BLOB_STORAGE_TYPE", "S3"}}))
                  .ok());
}

}  // namespace
}  // namespace sluice::sink
