// The blob-storage DLQ writer against s3rver, a real S3 API server (npm),
// and the S3 request signature checked by botocore.
#include "sink/dlq/blob_dlq_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/s3_test_server.h"
#include "sink/sinks/testing/server_process.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::S3TestServer;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

FailedMessage Dead(const std::string& topic, int64_t offset, int64_t consumed_ms) {
  FailedMessage f;
  f.message.topic = topic;
  f.message.partition = 2;
  f.message.offset = offset;
  f.message.key = "k" + std::to_string(offset);
  f.message.value = std::string("\xff\x00v", 3);
  f.message.timestamp_ms = 1714557600000 + offset;
  f.message.consume_timestamp_ms = consumed_ms;
  f.error_type = ErrorType::kDeserializationError;
  f.error = "bytes do not parse";
  return f;
}

ErrorConfig::S3 Config(const S3TestServer& s3) {
  ErrorConfig::S3 c;
  c.region = "ap-south-1";
  c.bucket = "dlq-bucket";
  c.access_key = S3TestServer::kAccessKey;
  c.secret_key = S3TestServer::kSecretKey;
  c.endpoint = s3.endpoint();
  c.api_timeout_ms = 5000;
  return c;
}

TEST(BlobDlqWriter, OneObjectPerTopicAndDayWithFirehosesJsonLines) {
  auto s3 = S3TestServer::Start("dlq-bucket");
  ASSERT_TRUE(s3.ok()) << s3.status();
  BlobStorageDlqWriter writer(std::make_unique<S3BlobStore>(Config(**s3)));
  const int64_t day1 = 1795564800000;  // 2026-11-25T00:00:00Z
  auto left = writer.Write({Dead("orders", 5, day1 + 1000), Dead("orders", 6, day1 + 2000),
                            Dead("payments", 7, day1 + 3000), Dead("orders", 8, day1 - 1000)});
  EXPECT_TRUE(left.empty());
  std::vector<std::string> objects = (*s3)->Objects();
  ASSERT_EQ(objects.size(), 3u);
  std::vector<std::string> prefixes;
  std::string orders_day1;
  for (const std::string& o : objects) {
    std::vector<std::string> parts = absl::StrSplit(o, '/');
    ASSERT_EQ(parts.size(), 3u) << o;
    EXPECT_EQ(parts[2].size(), 36u) << "a UUID: " << o;
    prefixes.push_back(parts[0] + "/" + parts[1]);
    if (parts[0] == "orders" && parts[1] == "2026-11-25") orders_day1 = (*s3)->Object(o);
  }
  EXPECT_THAT(prefixes, UnorderedElementsAre("orders/2026-11-25", "payments/2026-11-25", "orders/2026-11-24"));
  std::vector<std::string> lines = absl::StrSplit(orders_day1, '\n');
  ASSERT_EQ(lines.size(), 2u) << orders_day1;
  nlohmann::json j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j["topic"], "orders");
  EXPECT_EQ(j["partition"], 2);
  EXPECT_EQ(j["offset"], 5);
  EXPECT_EQ(j["timestamp"], 1714557600005);
  std::string key, value;
  ASSERT_TRUE(absl::Base64Unescape(j["key"].get<std::string>(), &key));
  ASSERT_TRUE(absl::Base64Unescape(j["value"].get<std::string>(), &value));
  EXPECT_EQ(key, "k5");
  EXPECT_EQ(value, std::string("\xff\x00v", 3)) << "raw bytes survive";
  EXPECT_EQ(j["error_type"], "DESERIALIZATION_ERROR");
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("bytes do not parse"));
}

TEST(BlobDlqWriter, ObjectNamesGoUnderTheDirectoryPrefix) {
  // Firehose: Paths.get(prefix, "<topic>/<date>/<uuid>"); no prefix, no '/'.
  EXPECT_EQ(BlobStorageDlqWriter::ObjectName("", "orders", "2026-11-25", "u"), "orders/2026-11-25/u");
  EXPECT_EQ(BlobStorageDlqWriter::ObjectName("dlq/team-a", "orders", "2026-11-25", "u"),
            "dlq/team-a/orders/2026-11-25/u");
}

TEST(BlobDlqWriter, AStoredObjectLandsUnderThePrefix) {
  auto s3 = S3TestServer::Start("dlq-bucket");
  ASSERT_TRUE(s3.ok()) << s3.status();
  BlobStorageDlqWriter writer(std::make_unique<S3BlobStore>(Config(**s3)), "dlq/team-a");
  const int64_t day1 = 1795564800000;  // 2026-11-25T00:00:00Z
  EXPECT_TRUE(writer.Write({Dead("orders", 5, day1)}).empty());
  std::vector<std::string> objects = (*s3)->Objects();
  ASSERT_EQ(objects.size(), 1u);
  EXPECT_EQ(objects[0].rfind("dlq/team-a/orders/2026-11-25/", 0), 0u) << objects[0];
  EXPECT_EQ(objects[0].size(), std::string("dlq/team-a/orders/2026-11-25/").size() + 36) << objects[0];
}

TEST(BlobDlqWriter, WhenTheStoreIsDownNothingCountsAsWritten) {
  auto s3 = S3TestServer::Start("dlq-bucket");
  ASSERT_TRUE(s3.ok()) << s3.status();
  BlobStorageDlqWriter writer(std::make_unique<S3BlobStore>(Config(**s3)));
  (*s3)->Kill();
  auto left = writer.Write({Dead("orders", 1, 0), Dead("orders", 2, 0)});
  ASSERT_EQ(left.size(), 2u) << "not written, so not committed";
  EXPECT_THAT(left[0].error, HasSubstr("DLQ write failed: S3 DLQ"));
}

TEST(BlobDlqWriter, AnErrorAnswerIsAFailedWrite) {
  auto s3 = S3TestServer::Start("dlq-bucket");
  ASSERT_TRUE(s3.ok()) << s3.status();
  ErrorConfig::S3 c = Config(**s3);
  c.bucket = "no-such-bucket";
  BlobStorageDlqWriter writer(std::make_unique<S3BlobStore>(c));
  auto left = writer.Write({Dead("orders", 1, 0)});
  ASSERT_EQ(left.size(), 1u);
  EXPECT_THAT(left[0].error, HasSubstr("HTTP 404"));
}

// s3rver does not check signatures, so the signature libcurl computes
// (CURLOPT_AWS_SIGV4) is checked by botocore, AWS's own signer: the PUT is
// captured by a plain HTTP server and its Authorization header recomputed.
std::string CheckWithBotocore(const testing::HttpRequest& r, const std::string& url,
                              const std::string& secret) {
  nlohmann::json headers = nlohmann::json::object();
  for (const auto& [name, value] : r.headers) headers[name] = value;
  nlohmann::json in = {{"method", r.method},           {"url", url + r.target},
                       {"headers", headers},           {"body_base64", absl::Base64Escape(r.body)},
                       {"access_key", "AKIDEXAMPLE"},  {"secret_key", secret},
                       {"region", "ap-south-1"},       {"service", "s3"}};
  std::string file = std::string(getenv("TEST_TMPDIR")) + "/request.json";
  std::ofstream(file) << in.dump();
  return testing::RunShell("/usr/bin/python3 sink/dlq/testing/sigv4_check.py < " +
                           testing::ShellQuote(file) + " 2>&1");
}

TEST(S3BlobStore, BotocoreAcceptsTheSignature) {
  auto server = testing::HttpTestServer::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  ErrorConfig::S3 c;
  c.region = "ap-south-1";
  c.bucket = "dlq-bucket";
  c.access_key = "AKIDEXAMPLE";
  c.secret_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  c.endpoint = (*server)->url();
  ASSERT_TRUE(S3BlobStore(c).Put("orders/2026-11-25/a b+c", "{\"offset\":1}\n").ok());
  ASSERT_EQ((*server)->requests().size(), 1u);
  const testing::HttpRequest r = (*server)->requests()[0];
  EXPECT_EQ(r.target, "/dlq-bucket/orders/2026-11-25/a%20b%2Bc");
  EXPECT_THAT(r.Header("authorization"), HasSubstr("/ap-south-1/s3/aws4_request"));
  EXPECT_THAT(r.Header("authorization"), HasSubstr("x-amz-content-sha256"));
  EXPECT_EQ(CheckWithBotocore(r, (*server)->url(), c.secret_key), "match\n");
  // The check can fail: another secret gives another signature.
  EXPECT_THAT(CheckWithBotocore(r, (*server)->url(), "not-the-secret"), HasSubstr("mismatch"));
}

}  // namespace
}  // namespace sluice::sink
