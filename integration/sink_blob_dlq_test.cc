// DLQ_WRITER_TYPE=BLOB_STORAGE end to end: the real sluice-sink sends a record
// that does not decode to s3rver (a real S3 API server) or to the Cloud
// Storage fake (integration/gcp_fake, proven with @google-cloud/storage), and
// commits past it only once the object is stored.
#include <signal.h>

#include <gtest/gtest.h>

#include <fstream>

#include "integration/gcp_fake/gcp_fake_process.h"
#include "integration/sink_harness.h"
#include "sink/sample/sample_gen.h"
#include "sink/sinks/testing/s3_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::S3TestServer;

// A topic of three records whose second does not decode, and the variables
// of a sink that sends DESERIALIZATION_ERROR records to a blob-storage DLQ.
std::map<std::string, std::string> PoisonTopicAndDlqEnv(const DevBroker& broker,
                                                        const std::string& group) {
  ProduceRaw(broker.bootstrap, "rides", 0,
             {sample::SampleBytes(0, 1000), "\xff\xff not a protobuf", sample::SampleBytes(2, 1000)});
  auto env = SinkEnv(broker.bootstrap, "rides", group, SampleDescriptorUrl());
  env["DLQ_SINK_ENABLE"] = "true";
  env["DLQ_WRITER_TYPE"] = "BLOB_STORAGE";
  env["ERROR_TYPES_FOR_DLQ"] = "DESERIALIZATION_ERROR";
  env["ERROR_TYPES_FOR_FAILING"] = "INVALID_MESSAGE_ERROR";
  return env;
}

// The dead letter of offset 1, then the good records delivered and every
// offset committed; the sink stops cleanly.
void ExpectDeadLetterAndDelivery(const std::string& line, Process* sink) {
  EXPECT_NE(line.find("\"offset\":1"), std::string::npos) << line;
  EXPECT_NE(line.find("\"topic\":\"rides\""), std::string::npos) << line;
  EXPECT_NE(line.find("DESERIALIZATION_ERROR"), std::string::npos) << line;
  EXPECT_EQ(CountLines(sink->Output(), "topic=rides"), 2);
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST(SinkBlobDlq, APoisonRecordIsStoredInS3AndTheRestIsDelivered) {
  std::string dir = TempDir("sink_s3_dlq");
  DevBroker broker = DevBroker::Start({"rides:1"}, dir);
  auto s3 = S3TestServer::Start("firehose-dlq");
  ASSERT_TRUE(s3.ok()) << s3.status();
  auto env = PoisonTopicAndDlqEnv(broker, "s3-dlq-group");
  env["DLQ_BLOB_STORAGE_TYPE"] = "S3";
  env["DLQ_S3_REGION"] = "ap-south-1";
  env["DLQ_S3_BUCKET_NAME"] = "firehose-dlq";
  env["DLQ_S3_ACCESS_KEY"] = S3TestServer::kAccessKey;
  env["DLQ_S3_SECRET_KEY"] = S3TestServer::kSecretKey;
  env["DLQ_S3_ENDPOINT_URL"] = (*s3)->endpoint();
  // Firehose's S3.createPath: Paths.get(prefix, "<topic>/<date>/<uuid>").
  env["DLQ_S3_DIRECTORY_PREFIX"] = "dlq/firehose-a/";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "s3-dlq-group", "rides", 1)[0] == 3; },
                      absl::Seconds(30)))
      << sink->Stderr();
  std::vector<std::string> objects = (*s3)->Objects();
  ASSERT_EQ(objects.size(), 1u);
  EXPECT_EQ(objects[0].rfind("dlq/firehose-a/rides/", 0), 0u) << objects[0];
  ExpectDeadLetterAndDelivery((*s3)->Object(objects[0]), sink.get());
}

TEST(SinkBlobDlq, OnGcsNothingIsCommittedUntilTheObjectIsStored) {
  std::string dir = TempDir("sink_gcs_dlq");
  DevBroker broker = DevBroker::Start({"rides:1"}, dir);
  auto gcs = GcpFake::Start();
  ASSERT_TRUE(gcs.ok()) << gcs.status();
  (*gcs)->Seed({{"buckets", {{"firehose-dlq", {{"project", "proj"}}}}}, {"projects", {"proj"}}});
  std::ofstream(dir + "/key.json") << (*gcs)->NewKey("proj").dump();
  // Cloud Storage refuses uploads (503) until the fault is cleared.
  (*gcs)->Fault({{"path", "/upload/storage"}, {"status", 503}, {"count", -1}});
  auto env = PoisonTopicAndDlqEnv(broker, "gcs-dlq-group");
  env["DLQ_GCS_GOOGLE_CLOUD_PROJECT_ID"] = "proj";
  env["DLQ_GCS_BUCKET_NAME"] = "firehose-dlq";
  env["DLQ_GCS_CREDENTIAL_PATH"] = dir + "/key.json";
  env["DLQ_GCS_API_BASE_URL"] = (*gcs)->base_url();
  // Firehose's GoogleCloudStorage.createPath, as for S3.
  env["DLQ_GCS_DIRECTORY_PREFIX"] = "dlq";
  env["DLQ_GCS_RETRY_INITIAL_DELAY_MS"] = "50";
  env["DLQ_GCS_RETRY_MAX_DELAY_MS"] = "100";
  env["RETRY_EXPONENTIAL_BACKOFF_MAX_MS"] = "200";
  auto sink = StartSink(env, dir + "/sink");
  auto uploads = [&] {
    return (*gcs)->Stats()["requests"].value("POST /upload/storage/v1/b/firehose-dlq/o", 0);
  };
  ASSERT_TRUE(WaitFor([&] { return uploads() >= 12; }, absl::Seconds(20))) << sink->Stderr();
  // Uploads were retried within each write (DLQ_GCS_RETRY_MAX_ATTEMPTS, 10)
  // and the write again by the DLQ layer; the dead letter at offset 1 holds
  // the partition's commit below it.
  EXPECT_LE(Committed(broker.bootstrap, "gcs-dlq-group", "rides", 1)[0], 1);
  (*gcs)->ClearFaults();
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "gcs-dlq-group", "rides", 1)[0] == 3; },
                      absl::Seconds(30)))
      << sink->Stderr();
  nlohmann::json objects = (*gcs)->Objects("firehose-dlq");
  ASSERT_EQ(objects.size(), 1u) << objects.dump();
  EXPECT_EQ(objects.begin().key().rfind("dlq/rides/", 0), 0u) << objects.dump();
  ExpectDeadLetterAndDelivery(objects.begin().value(), sink.get());
}

}  // namespace
}  // namespace sluice::integration
