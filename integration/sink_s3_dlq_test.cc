// DLQ_WRITER_TYPE=BLOB_STORAGE on S3 end to end: the real sluice-sink sends a
// record that does not decode to s3rver (a real S3 API server) and commits
// past it only once the object is stored.
#include <signal.h>

#include <gtest/gtest.h>

#include "integration/sink_harness.h"
#include "sink/sample/sample_gen.h"
#include "sink/sinks/testing/s3_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::S3TestServer;

TEST(SinkS3Dlq, APoisonRecordIsStoredInS3AndTheRestIsDelivered) {
  std::string dir = TempDir("sink_s3_dlq");
  DevBroker broker = DevBroker::Start({"rides:1"}, dir);
  auto s3 = S3TestServer::Start("firehose-dlq");
  ASSERT_TRUE(s3.ok()) << s3.status();
  ProduceRaw(broker.bootstrap, "rides", 0,
             {sample::SampleBytes(0, 1000), "\xff\xff not a protobuf", sample::SampleBytes(2, 1000)});
  auto env = SinkEnv(broker.bootstrap, "rides", "s3-dlq-group", SampleDescriptorUrl());
  env["DLQ_SINK_ENABLE"] = "true";
  env["DLQ_WRITER_TYPE"] = "BLOB_STORAGE";
  env["DLQ_BLOB_STORAGE_TYPE"] = "S3";
  env["DLQ_S3_REGION"] = "ap-south-1";
  env["DLQ_S3_BUCKET_NAME"] = "firehose-dlq";
  env["DLQ_S3_ACCESS_KEY"] = S3TestServer::kAccessKey;
  env["DLQ_S3_SECRET_KEY"] = S3TestServer::kSecretKey;
  env["DLQ_S3_ENDPOINT_URL"] = (*s3)->endpoint();
  env["ERROR_TYPES_FOR_DLQ"] = "DESERIALIZATION_ERROR";
  env["ERROR_TYPES_FOR_FAILING"] = "INVALID_MESSAGE_ERROR";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "s3-dlq-group", "rides", 1)[0] == 3; },
                      absl::Seconds(30)))
      << sink->Stderr();
  std::vector<std::string> objects = (*s3)->Objects();
  ASSERT_EQ(objects.size(), 1u);
  EXPECT_EQ(objects[0].rfind("rides/", 0), 0u) << objects[0];
  std::string line = (*s3)->Object(objects[0]);
  EXPECT_NE(line.find("\"offset\":1"), std::string::npos) << line;
  EXPECT_NE(line.find("DESERIALIZATION_ERROR"), std::string::npos) << line;
  EXPECT_EQ(CountLines(sink->Output(), "topic=rides"), 2);
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
