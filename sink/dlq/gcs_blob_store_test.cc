// GcsBlobStore against integration/gcp_fake (a stateful fake of the Cloud
// Storage JSON API that @google-cloud/storage is tested against): the media
// upload with a service-account token, Firehose's DLQ_GCS_RETRY_* settings,
// and what is not retried.
#include "sink/dlq/gcs_blob_store.h"

#include <fstream>
#include <vector>

#include "gtest/gtest.h"
#include "integration/gcp_fake/gcp_fake_process.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {
namespace {

using integration::GcpFake;

constexpr char kUploadRoute[] = "POST /upload/storage/v1/b/firehose-dlq/o";

class GcsBlobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fake = GcpFake::Start();
    ASSERT_TRUE(fake.ok()) << fake.status();
    fake_ = *std::move(fake);
    fake_->Seed({{"buckets", {{"firehose-dlq", {{"project", "proj"}}}}}, {"projects", {"proj"}}});
    key_path_ = std::string(getenv("TEST_TMPDIR")) + "/key.json";
    std::ofstream(key_path_) << fake_->NewKey("proj").dump();
    config_.project_id = "proj";
    config_.bucket = "firehose-dlq";
    config_.credential_path = key_path_;
    config_.api_base_url = fake_->base_url();
  }

  std::unique_ptr<GcsBlobStore> Store(StopCheck stop = nullptr) {
    RetryHooks hooks;
    hooks.sleep = [this](absl::Duration d) { sleeps_.push_back(d); };
    hooks.stop = std::move(stop);
    auto store = GcsBlobStore::Create(config_, nullptr, hooks);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // The stored object, read back without a token.
  std::string Object(const std::string& name) {
    fake_->Configure({{"requireAuth", false}});
    HttpRequest req;
    req.method = "GET";
    req.url = fake_->base_url() + "/storage/v1/b/firehose-dlq/o/" + UrlEscape(name) + "?alt=media";
    auto res = NewCurlHttpClient()->Do(req);
    fake_->Configure({{"requireAuth", true}});
    return res.ok() && res->status == 200 ? res->body : "<status " + std::to_string(res.ok() ? res->status : -1) + ">";
  }

  int Uploads() { return fake_->Stats()["requests"].value(kUploadRoute, 0); }

  std::unique_ptr<GcpFake> fake_;
  std::string key_path_;
  ErrorConfig::Gcs config_;
  std::vector<absl::Duration> sleeps_;
};

TEST_F(GcsBlobStoreTest, UploadsTheObjectWithAServiceAccountToken) {
  auto store = Store();
  ASSERT_NE(store, nullptr);
  const std::string data = "{\"offset\":1}\n{\"offset\":2}";
  ASSERT_TRUE(store->Put("rides/2026-11-25/a b", data).ok());
  EXPECT_EQ(Object("rides/2026-11-25/a b"), data);
  // The token is cached: a second object needs no new exchange.
  ASSERT_TRUE(store->Put("rides/2026-11-25/c", "x").ok());
  EXPECT_EQ(fake_->Stats()["tokenRequests"], 1);
  EXPECT_TRUE(sleeps_.empty());
}

TEST_F(GcsBlobStoreTest, RetriesServerErrorsWithFirehoseBackoff) {
  fake_->Fault({{"path", "/upload/storage"}, {"status", 503}, {"count", 2}});
  auto store = Store();
  ASSERT_TRUE(store->Put("rides/d/x", "x").ok());
  EXPECT_EQ(Uploads(), 3);
  // DLQ_GCS_RETRY_INITIAL_DELAY_MS 1000 × DLQ_GCS_RETRY_DELAY_MULTIPLIER 2.
  EXPECT_EQ(sleeps_, (std::vector<absl::Duration>{absl::Seconds(1), absl::Seconds(2)}));
  EXPECT_EQ(Object("rides/d/x"), "x");
}

TEST_F(GcsBlobStoreTest, ARevokedTokenIsRenewedOnce) {
  fake_->Fault({{"path", "/upload/storage"}, {"status", 401}, {"count", 1}});
  auto store = Store();
  ASSERT_TRUE(store->Put("rides/d/y", "y").ok());
  EXPECT_EQ(fake_->Stats()["tokenRequests"], 2);
  EXPECT_TRUE(sleeps_.empty());
}

TEST_F(GcsBlobStoreTest, StopsAfterMaxAttemptsOrTheTotalTimeout) {
  fake_->Fault({{"path", "/upload/storage"}, {"status", 500}, {"count", -1}});
  config_.retry_max_attempts = 3;
  config_.retry_max_delay_ms = 1500;
  absl::Status st = Store()->Put("rides/d/z", "z");
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("firehose-dlq"), std::string::npos) << st;
  EXPECT_NE(st.message().find("HTTP 500"), std::string::npos) << st;
  EXPECT_EQ(Uploads(), 3);
  EXPECT_EQ(sleeps_, (std::vector<absl::Duration>{absl::Seconds(1), absl::Milliseconds(1500)}));
  // 1.5 s in all: the second wait (2 s) would pass the total timeout.
  config_.retry_max_attempts = 10;
  config_.retry_max_delay_ms = 30000;
  config_.retry_total_timeout_ms = 1500;
  sleeps_.clear();
  EXPECT_FALSE(Store()->Put("rides/d/z", "z").ok());
  EXPECT_EQ(sleeps_, (std::vector<absl::Duration>{absl::Seconds(1)}));
  EXPECT_EQ(Uploads(), 5);
}

TEST_F(GcsBlobStoreTest, AStopRequestEndsTheRetries) {
  fake_->Fault({{"path", "/upload/storage"}, {"status", 503}, {"count", -1}});
  EXPECT_FALSE(Store([] { return true; })->Put("rides/d/s", "s").ok());
  EXPECT_EQ(Uploads(), 1);
  EXPECT_TRUE(sleeps_.empty());
}

TEST_F(GcsBlobStoreTest, AMissingBucketIsNotRetried) {
  config_.bucket = "no-such-bucket";
  absl::Status st = Store()->Put("rides/d/m", "m");
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("no-such-bucket"), std::string::npos) << st;
  EXPECT_NE(st.message().find("HTTP 404"), std::string::npos) << st;
  EXPECT_TRUE(sleeps_.empty());
}

TEST_F(GcsBlobStoreTest, AnUnreadableOrInvalidKeyStopsStartUp) {
  config_.credential_path = key_path_ + ".missing";
  auto store = GcsBlobStore::Create(config_);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("DLQ_GCS_CREDENTIAL_PATH"), std::string::npos);
  std::ofstream(key_path_) << R"({"type":"service_account","client_email":"a@b"})";
  config_.credential_path = key_path_;
  store = GcsBlobStore::Create(config_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice::sink
