#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "sink/metrics_prometheus.h"
#include "sink/metrics_statsd.h"

namespace sluice::sink {
namespace {

TEST(Statsd, DogstatsdLineFormat) {
  EXPECT_EQ(StatsdLine("firehose_sink_messages_total", 3, "c", {{"type", "SUCCESS"}},
                       {{"team", "data"}}),
            "firehose_sink_messages_total:3|c|#type:SUCCESS,team:data");
  EXPECT_EQ(StatsdLine("x", 1.5, "ms", {}, {}), "x:1.5|ms");
}

TEST(Statsd, SendsOverUdp) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  MetricConfig c;
  c.statsd_host = "127.0.0.1";
  c.statsd_port = ntohs(addr.sin_port);
  c.statsd_tags = {{"env", "test"}};
  auto m = StatsdMetrics::Create(c);
  ASSERT_TRUE(m.ok()) << m.status();
  (*m)->Observe("firehose_sink_response_time_milliseconds", {}, 12);
  (*m)->Gauge("lag", {{"partition", "0"}}, 5);
  char buf[512];
  ssize_t n = recv(fd, buf, sizeof(buf), 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), "firehose_sink_response_time_milliseconds:12|ms|#env:test");
  n = recv(fd, buf, sizeof(buf), 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), "lag:5|g|#partition:0,env:test");
  close(fd);
  c.statsd_host = "no-such-host.invalid";
  EXPECT_FALSE(StatsdMetrics::Create(c).ok());
}

TEST(Prometheus, ExposesCountersHistogramsAndGauges) {
  auto m = PrometheusMetrics::Create(0, {{"team", "data"}});
  ASSERT_TRUE(m.ok()) << m.status();
  (*m)->Increment("firehose_source_kafka_messages_commit_total", {{"success", "true"}}, 2);
  (*m)->Increment("firehose_source_kafka_messages_commit_total", {{"success", "true"}}, 1);
  (*m)->Observe("firehose_sink_response_time_milliseconds", {}, 7);
  (*m)->Gauge("sluice_source_kafka_partition_lag", {{"partition", "1"}}, 9);
  std::string text = (*m)->Scrape();
  EXPECT_NE(text.find("firehose_source_kafka_messages_commit_total{success=\"true\",team=\"data\"} 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("firehose_sink_response_time_milliseconds_bucket{team=\"data\",le=\"10\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("sluice_source_kafka_partition_lag{partition=\"1\",team=\"data\"} 9"),
            std::string::npos);
}

}  // namespace
}  // namespace sluice::sink
