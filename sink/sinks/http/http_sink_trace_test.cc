// The http sink continues the trace of a record's Kafka `traceparent`
// header: the request it sends carries a traceparent of a CLIENT span that
// is a child of the record's context, and its log lines carry the trace id.
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "common/trace/testing/span_recorder.h"
#include "common/trace/span.h"
#include "gtest/gtest.h"
#include "sink/sinks/http/http_sink.h"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/recording_metrics.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::HttpTestServer;

constexpr char kRecordTrace[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

using Recorder = ::sluice::trace::testing::SpanRecorder;

Message Record(int64_t offset, std::vector<std::pair<std::string, std::string>> headers) {
  auto pb = std::make_shared<testing::TestMessage>();
  pb->set_order_number("order-" + std::to_string(offset));
  Message m;
  m.topic = "orders";
  m.offset = offset;
  m.value = pb->SerializeAsString();
  m.decoded = pb;
  m.headers = std::move(headers);
  return m;
}

class HttpSinkTraceTest : public ::testing::Test {
 protected:
  std::unique_ptr<Sink> MakeSink(std::map<std::string, std::string> vars) {
    env_ = Env(std::move(vars));
    auto sink = CreateFromContext<HttpSink>(
        SinkContext{&env_, &metrics_, &testing::FindGenerated});
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }
  void SetUp() override { trace::SetTracerProvider(trace::Sampler{}, recorder_); }
  void TearDown() override { trace::SetTracerProvider(trace::Sampler{}, nullptr); }
  Env env_;
  testing::RecordingMetrics metrics_;
  std::shared_ptr<Recorder> recorder_ = std::make_shared<Recorder>();
};

TEST_F(HttpSinkTraceTest, EachRequestContinuesItsRecordsTrace) {
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  // One request per record (query parameters), so each has its own trace.
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url() + "/in"},
                        {"SINK_HTTP_PARAMETER_SOURCE", "message"},
                        {"SINK_HTTP_PARAMETER_PLACEMENT", "query"},
                        {"SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
                        {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", "{\"1\":\"order\"}"}});
  ASSERT_NE(sink, nullptr);
  std::vector<Message> batch = {
      Record(1, {{"traceparent", kRecordTrace}, {"tracestate", "congo=t61rcWkgMzE"}}),
      Record(2, {}),
      Record(3, {{"traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}}),
  };
  EXPECT_TRUE(sink->Push(batch).empty());
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 3u);
  int traced = 0;
  for (const auto& r : reqs) {
    std::string tp = r.Header("traceparent");
    if (tp.empty()) continue;
    ++traced;
    auto sent = trace::ParseTraceparent(tp);
    ASSERT_TRUE(sent.has_value()) << tp;
    EXPECT_EQ(sent->TraceIdHex(), "4bf92f3577b34da6a3ce929d0e0e4736");
    EXPECT_NE(sent->SpanIdHex(), "00f067aa0ba902b7");
    EXPECT_EQ(r.Header("tracestate"), "congo=t61rcWkgMzE");
  }
  EXPECT_EQ(traced, 1);  // the record without and the one with an invalid header: none
}

TEST_F(HttpSinkTraceTest, BatchRequestContinuesTheFirstTracedRecord) {
  auto server = HttpTestServer::Start([](const auto&) { return 500; });
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url() + "/in"}});
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1, {}), Record(2, {{"traceparent", kRecordTrace}})});
  EXPECT_EQ(failed.size(), 2u);  // 500 is in the default retry ranges
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  auto sent = trace::ParseTraceparent(reqs[0].Header("traceparent"));
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(sent->TraceIdHex(), "4bf92f3577b34da6a3ce929d0e0e4736");

  absl::MutexLock lock(&recorder_->mu);
  ASSERT_EQ(recorder_->spans.size(), 1u);
  const trace::SpanData& span = recorder_->spans[0];
  EXPECT_EQ(span.kind, trace::SpanKind::kClient);
  EXPECT_EQ(span.name, "HTTP PUT");
  EXPECT_EQ(span.context.span_id, sent->span_id);
  trace::TraceContext parent_ids;
  parent_ids.span_id = span.parent_span_id;
  EXPECT_EQ(parent_ids.SpanIdHex(), "00f067aa0ba902b7");
  EXPECT_EQ(span.status, trace::SpanStatus::kError);
  bool has_status = false;
  for (const auto& [k, v] : span.attributes) {
    if (k == "http.response.status_code") has_status = std::get<int64_t>(v) == 500;
  }
  EXPECT_TRUE(has_status);
}

}  // namespace
}  // namespace sluice::sink
