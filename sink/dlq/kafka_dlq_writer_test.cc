// KafkaDlqWriter against librdkafka's in-process mock cluster.
#include <gtest/gtest.h>

#include "librdkafka/rdkafka.h"
#include "librdkafka/rdkafka_mock.h"
#include "sink/dlq/kafka_dlq_writer.h"

namespace sluice::sink {
namespace {

TEST(KafkaDlqWriter, WritesOriginalRecordWithErrorHeaders) {
  char err[256];
  rd_kafka_t* owner = rd_kafka_new(RD_KAFKA_PRODUCER, rd_kafka_conf_new(), err, sizeof(err));
  rd_kafka_mock_cluster_t* mc = rd_kafka_mock_cluster_new(owner, 1);
  rd_kafka_mock_topic_create(mc, "dlq", 1, 1);
  std::string bootstrap = rd_kafka_mock_cluster_bootstraps(mc);
  {
    // Properties arrive translated and checked (TranslateKafkaProperties); one
    // librdkafka still rejects is an error naming it, not skipped.
    auto bad = KafkaDlqWriter::Create(bootstrap, "dlq", "all", {{"bogus.x", "1"}});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.status().message().find("bogus.x"), std::string::npos) << bad.status();
    auto w = KafkaDlqWriter::Create(bootstrap, "dlq", "all", {{"linger.ms", "1"}});
    ASSERT_TRUE(w.ok()) << w.status();
    FailedMessage f;
    f.message.topic = "orders";
    f.message.partition = 3;
    f.message.offset = 42;
    f.message.key = "k1";
    f.message.value = "payload";
    f.message.headers = {{"trace", "abc"}};
    f.error_type = ErrorType::kSink5xxError;
    f.error = "HTTP 500";
    EXPECT_TRUE((*w)->Write({f}).empty());
  }
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "group.id", "dlq-reader", err, sizeof(err));
  rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  auto* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, "dlq", 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(c, list);
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_message_t* m = nullptr;
  for (int i = 0; i < 100 && m == nullptr; ++i) {
    m = rd_kafka_consumer_poll(c, 100);
    if (m != nullptr && m->err) {
      fprintf(stderr, "poll: %s\n", rd_kafka_message_errstr(m));
      rd_kafka_message_destroy(m);
      m = nullptr;
    }
  }
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(std::string(static_cast<char*>(m->payload), m->len), "payload");
  EXPECT_EQ(std::string(static_cast<char*>(m->key), m->key_len), "k1");
  rd_kafka_headers_t* hdrs = nullptr;
  ASSERT_EQ(rd_kafka_message_headers(m, &hdrs), RD_KAFKA_RESP_ERR_NO_ERROR);
  auto header = [&](const char* name) {
    const void* v;
    size_t n;
    if (rd_kafka_header_get_last(hdrs, name, &v, &n)) return std::string("<missing>");
    return std::string(static_cast<const char*>(v), n);
  };
  EXPECT_EQ(header("trace"), "abc");
  EXPECT_EQ(header(kDlqHeaderErrorType), "SINK_5XX_ERROR");
  EXPECT_EQ(header(kDlqHeaderSourceTopic), "orders");
  EXPECT_EQ(header(kDlqHeaderSourcePartition), "3");
  EXPECT_EQ(header(kDlqHeaderSourceOffset), "42");
  EXPECT_EQ(header(kDlqHeaderErrorMessage), "HTTP 500");
  rd_kafka_message_destroy(m);
  rd_kafka_consumer_close(c);
  rd_kafka_destroy(c);
  rd_kafka_mock_cluster_destroy(mc);
  rd_kafka_destroy(owner);
}

FailedMessage Dead(int64_t offset, std::string value) {
  FailedMessage f;
  f.message.topic = "orders";
  f.message.offset = offset;
  f.message.value = std::move(value);
  f.error = "HTTP 500";
  return f;
}

TEST(KafkaDlqWriter, ALateReportOfAnEarlierWriteNeverCountsForTheCurrentOne) {
  // Review M6: reports were keyed by the index within the current Write, so
  // the late success of an earlier Write's message 0 marked this Write's
  // message 0 as delivered although its produce had failed.
  char err[256];
  rd_kafka_t* owner = rd_kafka_new(RD_KAFKA_PRODUCER, rd_kafka_conf_new(), err, sizeof(err));
  rd_kafka_mock_cluster_t* mc = rd_kafka_mock_cluster_new(owner, 1);
  rd_kafka_mock_topic_create(mc, "dlq", 1, 1);
  std::string bootstrap = rd_kafka_mock_cluster_bootstraps(mc);
  {
    auto w = KafkaDlqWriter::Create(bootstrap, "dlq", "all",
                                    {{"linger.ms", "1"}, {"message.max.bytes", "2000"}},
                                    absl::Milliseconds(600));
    ASSERT_TRUE(w.ok()) << w.status();
    // Metadata and connection ready. The writer gives up after 600 ms, which
    // a loaded machine can exceed for the first write: repeat the warm-up.
    bool warm = false;
    for (int i = 0; i < 10 && !warm; ++i) warm = (*w)->Write({Dead(1, "warm-up")}).empty();
    ASSERT_TRUE(warm);
    // The broker now answers after 800 ms: the next Write gives up at 600 ms.
    rd_kafka_mock_broker_set_rtt(mc, 1, 800);
    auto left = (*w)->Write({Dead(2, "A")});
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].message.offset, 2);
    rd_kafka_mock_broker_set_rtt(mc, 1, 0);
    // B is refused at produce time (larger than message.max.bytes); A's
    // success arrives while this Write waits for C.
    left = (*w)->Write({Dead(3, std::string(5000, 'B')), Dead(4, "C")});
    ASSERT_EQ(left.size(), 1u) << "B must stay undelivered, C delivered";
    EXPECT_EQ(left[0].message.offset, 3);
    EXPECT_NE(left[0].error.find("DLQ write failed"), std::string::npos) << left[0].error;
  }
  rd_kafka_mock_cluster_destroy(mc);
  rd_kafka_destroy(owner);
}

}  // namespace
}  // namespace sluice::sink
