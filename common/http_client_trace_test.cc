// Trace propagation of the libcurl client against a real HTTP server: the
// `traceparent` it sends names a CLIENT span that is a child of the current
// context, and that span carries the HTTP attributes.
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "common/trace/testing/span_recorder.h"
#include "common/http_client.h"
#include "common/trace/span.h"
#include "gtest/gtest.h"
#include "sink/sinks/testing/http_test_server.h"

namespace sluice {
namespace {

using Recorder = ::sluice::trace::testing::SpanRecorder;

TEST(HttpClientTrace, SendsTraceparentOfAChildSpanOfTheCurrentContext) {
  auto recorder = std::make_shared<Recorder>();
  trace::SetTracerProvider(trace::Sampler{}, recorder);
  auto server = sink::testing::HttpTestServer::Start([](const auto&) { return 503; });
  ASSERT_TRUE(server.ok());
  auto client = NewCurlHttpClient();
  auto parent = trace::ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  parent->tracestate = "congo=t61rcWkgMzE";
  {
    trace::ScopedSpan server_span("/pkg.Svc/Method", trace::SpanKind::kServer, &*parent);
    HttpRequest req;
    req.url = (*server)->url() + "/hook?token=secret";
    req.body = "{}";
    auto result = client->Do(req);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->status, 503);
  }
  // Outside any context: sent as before, without a traceparent.
  HttpRequest plain;
  plain.method = "GET";
  plain.url = (*server)->url() + "/x";
  ASSERT_TRUE(client->Do(plain).ok());
  // A caller's own traceparent is kept.
  HttpRequest own = plain;
  own.headers = {"traceparent: 00-11111111111111111111111111111111-2222222222222222-00"};
  {
    trace::ScopedSpan job("job", trace::SpanKind::kInternal, nullptr);
    ASSERT_TRUE(client->Do(own).ok());
  }
  trace::SetTracerProvider(trace::Sampler{}, nullptr);

  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 3u);
  auto sent = trace::ParseTraceparent(reqs[0].Header("traceparent"));
  ASSERT_TRUE(sent.has_value()) << reqs[0].Header("traceparent");
  EXPECT_EQ(sent->TraceIdHex(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_TRUE(sent->sampled());
  EXPECT_EQ(reqs[0].Header("tracestate"), "congo=t61rcWkgMzE");
  EXPECT_EQ(reqs[1].Header("traceparent"), "");
  EXPECT_EQ(reqs[1].Header("tracestate"), "");
  EXPECT_EQ(reqs[2].Header("traceparent"),
            "00-11111111111111111111111111111111-2222222222222222-00");

  absl::MutexLock lock(&recorder->mu);
  // client, server, then the job's client span and the job span
  ASSERT_EQ(recorder->spans.size(), 4u);
  const trace::SpanData& client_span = recorder->spans[0];
  const trace::SpanData& server_span = recorder->spans[1];
  EXPECT_EQ(server_span.kind, trace::SpanKind::kServer);
  EXPECT_EQ(client_span.kind, trace::SpanKind::kClient);
  EXPECT_EQ(client_span.name, "HTTP POST");
  // The header names the client span, a child of the server span.
  EXPECT_EQ(client_span.context.span_id, sent->span_id);
  EXPECT_EQ(client_span.parent_span_id, server_span.context.span_id);
  std::map<std::string, trace::AttributeValue> attrs(client_span.attributes.begin(),
                                                     client_span.attributes.end());
  EXPECT_EQ(std::get<std::string>(attrs["http.request.method"]), "POST");
  EXPECT_EQ(std::get<std::string>(attrs["server.address"]), "127.0.0.1");
  EXPECT_EQ(std::get<std::string>(attrs["url.full"]), (*server)->url());  // no path, no query
  EXPECT_EQ(std::get<int64_t>(attrs["http.response.status_code"]), 503);
  EXPECT_EQ(client_span.status, trace::SpanStatus::kError);
}

}  // namespace
}  // namespace sluice
