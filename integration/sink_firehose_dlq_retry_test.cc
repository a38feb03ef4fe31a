// Firehose's documented retry and DLQ examples, run through sluice-sink end to
// end (issue #39 item 5): a real Apache Kafka broker (integration/
// kafka_broker.h, its version printed; one for the suite, a topic pair per
// test), the http sink against an HTTP server that answers per record, and
// the KAFKA dead-letter writer. The settings are
// the example values of goto/firehose@857761c6's docs:
//   docs/docs/advance/retries.md  RETRY_MAX_ATTEMPTS=3 (backoff defaults 10/2/60000)
//   docs/docs/advance/dlq.md      DLQ_SINK_ENABLE=true, DLQ_RETRY_MAX_ATTEMPTS=3,
//                                 DLQ_WRITER_TYPE (KAFKA, one of the listed writers)
//   docs/docs/advance/errors.md   ERROR_TYPES_FOR_DLQ=DEFAULT_ERROR,SINK_UNKNOWN_ERROR,
//                                 ERROR_TYPES_FOR_RETRY=DEFAULT_ERROR
// The counts asserted are what Firehose's code gives for them:
// AbstractHttpSink.java:63-64 fails a message whose status is in
// SINK_HTTP_RETRY_STATUS_CODE_RANGES (default 400-600, HttpSinkConfig.java:21-22)
// without an error type, so it is DEFAULT_ERROR (AbstractSink.java:70,
// Message.java:33-36); SinkWithRetry.java:110-118 pushes it RETRY_MAX_ATTEMPTS
// more times (1 + 3 requests); SinkWithDlq.java:50-58 then writes it to the DLQ
// (DEFAULT_ERROR is in ERROR_TYPES_FOR_DLQ, ErrorHandler.java:35). A non-2xx
// status outside the ranges is dropped (AbstractHttpSink.java:65-67): one
// request, no dead letter, committed. The last two cases run Firehose's
// defaults and errors.md's ERROR_TYPES_FOR_FAILING example.
#include <signal.h>

#include <atomic>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "integration/kafka_broker.h"
#include "integration/process.h"
#include "integration/sink_harness.h"
#include "librdkafka/rdkafka.h"
#include "sink/sinks/testing/http_test_server.h"

namespace sluice::integration {
namespace {

constexpr int kRecords = 9;

// The end offset (high watermark) of partition 0 of `topic`: how many records
// the broker holds there; -1 when the broker does not answer.
int64_t EndOffset(const std::string& bootstrap, const std::string& topic) {
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  int64_t low = -1, high = -1;
  if (rd_kafka_query_watermark_offsets(rk, topic.c_str(), 0, &low, &high, 10000) !=
      RD_KAFKA_RESP_ERR_NO_ERROR) {
    high = -1;
  }
  rd_kafka_destroy(rk);
  return high;
}

// ORD-<i>: i % 3 == 0 -> 200, 1 -> 500, 2 -> 400.
int StatusFor(int i) { return i % 3 == 0 ? 200 : i % 3 == 1 ? 500 : 400; }

class SinkFirehoseDlqRetry : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new KafkaBroker(KafkaBroker::Start({}, TempDir("sink_fh_dlq_retry_kafka")));
  }
  static void TearDownTestSuite() {
    delete broker_;  // stops the broker
    broker_ = nullptr;
  }

  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = TempDir(absl::StrCat("sink_fh_dlq_retry_", name));
    // Each test its own source and dead-letter topics on the suite's broker.
    orders_ = name + "-orders";
    dead_ = name + "-dead-letters";
    ASSERT_TRUE(broker_->CreateTopics({orders_ + ":1", dead_ + ":1"}).ok());
    ProduceSamples(broker_->bootstrap, orders_, 0, kRecords);
    auto server = sink::testing::HttpTestServer::Start([this](const sink::testing::HttpRequest& r) {
      // /orders/ORD-<i> (SINK_HTTP_SERVICE_URL's %s filled with field 1).
      const std::string prefix = "/orders/ORD-";
      int i = -1;
      if (r.target.rfind(prefix, 0) == 0) i = std::stoi(r.target.substr(prefix.size()));
      absl::MutexLock lock(&mu_);
      ++requests_[i];
      return i < 0 ? 404 : StatusFor(i);
    });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  std::map<std::string, std::string> Env(const std::string& group) {
    auto env = SinkEnv(broker_->bootstrap, orders_, group, SampleDescriptorUrl());
    env["SINK_TYPE"] = "http";
    // One request per record: the URL takes field 1 (order_number).
    env["SINK_HTTP_SERVICE_URL"] = server_->url() + "/orders/%s,1";
    env["RETRY_MAX_ATTEMPTS"] = "3";
    env["DLQ_SINK_ENABLE"] = "true";
    env["DLQ_WRITER_TYPE"] = "KAFKA";
    env["DLQ_KAFKA_BROKERS"] = broker_->bootstrap;
    env["DLQ_KAFKA_TOPIC"] = dead_;
    env["DLQ_RETRY_MAX_ATTEMPTS"] = "3";
    env["ERROR_TYPES_FOR_DLQ"] = "DEFAULT_ERROR,SINK_UNKNOWN_ERROR";
    env["ERROR_TYPES_FOR_RETRY"] = "DEFAULT_ERROR";
    return env;
  }

  // Runs the sink until every record is committed, then stops it.
  void RunToCommit(const std::map<std::string, std::string>& env, const std::string& group) {
    auto sink = StartSink(env, dir_ + "/" + group);
    ASSERT_TRUE(WaitFor([&] { return Committed(broker_->bootstrap, group, orders_, 1)[0] == kRecords; },
                        absl::Seconds(90)))
        << sink->Stderr();
    sink->Signal(SIGTERM);
    EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
  }

  int Requests(int i) {
    absl::MutexLock lock(&mu_);
    return requests_[i];
  }

  static KafkaBroker* broker_;
  std::string dir_, orders_, dead_;
  std::unique_ptr<sink::testing::HttpTestServer> server_;
  absl::Mutex mu_;
  std::map<int, int> requests_ ABSL_GUARDED_BY(mu_);
};
KafkaBroker* SinkFirehoseDlqRetry::broker_ = nullptr;

TEST_F(SinkFirehoseDlqRetry, DocsExampleRetriesEveryStatusInTheRangesThenDeadLettersIt) {
  RunToCommit(Env("fh-docs"), "fh-docs");
  for (int i = 0; i < kRecords; ++i) {
    // 200: one request. 500 and 400 (both in the default 400-600): the first
    // push and RETRY_MAX_ATTEMPTS=3 retries.
    EXPECT_EQ(Requests(i), StatusFor(i) == 200 ? 1 : 4) << "ORD-" << i << " answered " << StatusFor(i);
  }
  auto dead = ReadAll(broker_->bootstrap, dead_, 6, absl::Seconds(30));
  ASSERT_EQ(dead.size(), 6u) << "every 500 and 400 record, once";
  std::map<std::string, int> letters;
  for (const auto& d : dead) {
    EXPECT_EQ(d.headers.at("error_type"), "DEFAULT_ERROR") << d.key;
    ++letters[d.key];
  }
  for (int i = 0; i < kRecords; ++i) {
    EXPECT_EQ(letters[absl::StrCat("ORD-", i)], StatusFor(i) == 200 ? 0 : 1) << "ORD-" << i;
  }
}

TEST_F(SinkFirehoseDlqRetry, AStatusOutsideTheRetryRangesIsDroppedNotRetriedNorDeadLettered) {
  auto env = Env("fh-ranges");
  env["SINK_HTTP_RETRY_STATUS_CODE_RANGES"] = "500-599";
  RunToCommit(env, "fh-ranges");
  for (int i = 0; i < kRecords; ++i) {
    EXPECT_EQ(Requests(i), StatusFor(i) == 500 ? 4 : 1) << "ORD-" << i << " answered " << StatusFor(i);
  }
  auto dead = ReadAll(broker_->bootstrap, dead_, 3, absl::Seconds(30));
  ASSERT_EQ(dead.size(), 3u) << "only the 500 records";
  for (const auto& d : dead) {
    int i = std::stoi(d.key.substr(4));
    EXPECT_EQ(StatusFor(i), 500) << d.key;
    EXPECT_EQ(d.headers.at("error_type"), "DEFAULT_ERROR");
  }
}

// Firehose's defaults (ErrorConfig.java:12-28): ERROR_TYPES_FOR_RETRY
// DEFAULT_ERROR,SINK_RETRYABLE_ERROR and an empty ERROR_TYPES_FOR_DLQ. With
// the DLQ enabled nothing is dead-lettered (ErrorHandler.java:34-35): the
// failures are retried, then ignored by SinkFinal (SinkFinal.java:29-31) and
// committed; sluice logs each one and counts it.
TEST_F(SinkFirehoseDlqRetry, TheDefaultsRetryThenDropWithoutDeadLetters) {
  auto env = Env("fh-defaults");
  env.erase("ERROR_TYPES_FOR_DLQ");
  env.erase("ERROR_TYPES_FOR_RETRY");
  auto sink = StartSink(env, dir_ + "/fh-defaults");
  ASSERT_TRUE(WaitFor([&] { return Committed(broker_->bootstrap, "fh-defaults", orders_, 1)[0] == kRecords; },
                      absl::Seconds(90)))
      << sink->Stderr();
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
  for (int i = 0; i < kRecords; ++i) {
    EXPECT_EQ(Requests(i), StatusFor(i) == 200 ? 1 : 4) << "ORD-" << i << " answered " << StatusFor(i);
  }
  EXPECT_EQ(EndOffset(broker_->bootstrap, dead_), 0)
      << "ERROR_TYPES_FOR_DLQ is empty: no dead letters";
  const std::string err = sink->Stderr();
  EXPECT_NE(err.find("dropping DEFAULT_ERROR topic=" + orders_ + " partition=0 offset=1 "), std::string::npos)
      << err;
}

// errors.md's example ERROR_TYPES_FOR_FAILING=DEFAULT_ERROR,SINK_UNKNOWN_ERROR:
// SinkWithFailHandler is innermost (FirehoseConsumerFactory.java:167), so the
// first 500 stops the consumer (SinkWithFailHandler.java:35-38) before any
// retry or dead letter, although DEFAULT_ERROR is also in the retry and DLQ
// lists of the example.
TEST_F(SinkFirehoseDlqRetry, TheFailingExampleStopsAtTheFirstFailureWithoutRetrying) {
  auto env = Env("fh-failing");
  env["ERROR_TYPES_FOR_FAILING"] = "DEFAULT_ERROR,SINK_UNKNOWN_ERROR";
  auto sink = StartSink(env, dir_ + "/fh-failing");
  EXPECT_EQ(sink->Wait(absl::Seconds(60)), 1) << sink->Stderr();
  EXPECT_NE(sink->Stderr().find("DEFAULT_ERROR (in ERROR_TYPES_FOR_FAILING)"), std::string::npos)
      << sink->Stderr();
  for (int i = 0; i < kRecords; ++i) EXPECT_LE(Requests(i), 1) << "ORD-" << i << ": never retried";
  EXPECT_EQ(EndOffset(broker_->bootstrap, dead_), 0) << "no dead letters";
  EXPECT_LE(Committed(broker_->bootstrap, "fh-failing", orders_, 1)[0], 1)
      << "nothing past ORD-1 (offset 1) is committed";
}

}  // namespace
}  // namespace sluice::integration
