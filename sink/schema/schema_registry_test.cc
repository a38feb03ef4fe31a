#include "sink/schema/schema_registry.h"

#include <atomic>
#include <fstream>
#include <thread>
#include <sstream>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "sink/sample/sample_gen.h"
#include "sink/schema/proto_decoder.h"
#include "sink/sinks/testing/http_test_server.h"

namespace sluice::sink {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char kV1[] = "sink/sample/sample_cc.desc";
const char kV2[] = "sink/sample/testdata/sample_v2_cc.desc";

SchemaConfig FileConfig() {
  SchemaConfig c;
  c.urls = {std::string("file://") + kV1};
  return c;
}

// Serves URLs from a mutable map.
struct FakeServer {
  absl::Mutex mu;
  std::map<std::string, std::string> bodies;
  Fetcher fetcher() {
    return [this](const std::string& url) -> absl::StatusOr<std::string> {
      absl::MutexLock l(&mu);
      auto it = bodies.find(url);
      if (it == bodies.end()) return absl::NotFoundError(url);
      return it->second;
    };
  }
  void Set(const std::string& url, std::string body) {
    absl::MutexLock l(&mu);
    bodies[url] = std::move(body);
  }
};

TEST(SchemaRegistry, FindsByProtoAndJavaNames) {
  auto reg = SchemaRegistry::Create(FileConfig());
  ASSERT_TRUE(reg.ok()) << reg.status();
  auto schema = (*reg)->Current();
  for (const char* name :
       {"sluice.sample.SampleLogMessage", "io.sluice.sample.SampleProto$SampleLogMessage",
        "io.sluice.sample.SampleProto.SampleLogMessage"}) {
    auto d = schema->FindMessage(name);
    ASSERT_TRUE(d.ok()) << name << ": " << d.status();
    EXPECT_EQ((*d)->full_name(), "sluice.sample.SampleLogMessage");
  }
  auto missing = schema->FindMessage("com.example.Nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("com.example.Nope"), std::string::npos);
}

TEST(SchemaRegistry, JavaNamesFollowProtocRules) {
  google::protobuf::FileDescriptorProto f;
  f.set_name("a/foo_bar.proto");
  f.set_package("p");
  f.add_message_type()->set_name("FooBar");
  f.mutable_message_type(0)->add_nested_type()->set_name("In");
  auto names = JavaClassNames(f);
  EXPECT_EQ(names["p.FooBarOuterClass$FooBar"], "p.FooBar");
  EXPECT_EQ(names["p.FooBarOuterClass$FooBar$In"], "p.FooBar.In");
  f.mutable_options()->set_java_multiple_files(true);
  f.mutable_options()->set_java_package("com.x");
  names = JavaClassNames(f);
  EXPECT_EQ(names["com.x.FooBar"], "p.FooBar");
  EXPECT_EQ(names["com.x.FooBar$In"], "p.FooBar.In");
}

TEST(SchemaRegistry, MissingFileNamesTheUrl) {
  SchemaConfig c;
  c.urls = {"file:///nonexistent/x.desc"};
  auto reg = SchemaRegistry::Create(c);
  ASSERT_FALSE(reg.ok());
  EXPECT_NE(reg.status().message().find("file:///nonexistent/x.desc"), std::string::npos);
}

TEST(ProtoDecoder, DecodesAndFlagsUndecodable) {
  auto reg = SchemaRegistry::Create(FileConfig());
  ASSERT_TRUE(reg.ok());
  auto dec = ProtoDecoder::Create(reg->get(), "io.sluice.sample.SampleProto$SampleLogMessage", false);
  ASSERT_TRUE(dec.ok()) << dec.status();
  std::vector<Message> batch(3);
  batch[0].value = sample::SampleBytes(1, 1000);
  batch[1].value = "\xff\xff\xff garbage";
  batch[1].offset = 41;
  batch[2].value = sample::SampleBytes(2, 1000);
  std::vector<FailedMessage> failed;
  (*dec)->Decode(&batch, &failed);
  ASSERT_EQ(batch.size(), 2u);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kDeserializationError);
  EXPECT_EQ(failed[0].message.offset, 41);
  ASSERT_NE(batch[1].decoded, nullptr);
  const auto* d = batch[1].decoded->GetDescriptor();
  EXPECT_EQ(batch[1].decoded->GetReflection()->GetString(*batch[1].decoded,
                                                         d->FindFieldByName("order_number")),
            "ORD-2");
  EXPECT_FALSE(ProtoDecoder::Create(reg->get(), "x.Y", false).ok());
}

TEST(ProtoDecoder, UnknownFieldsFailWhenNotAllowed) {
  auto reg = SchemaRegistry::Create(FileConfig());
  ASSERT_TRUE(reg.ok());
  auto strict = ProtoDecoder::Create(reg->get(), "sluice.sample.SampleLogMessage", false,
                                     /*allow_unknown_fields=*/false);
  ASSERT_TRUE(strict.ok());
  std::vector<Message> batch(2);
  batch[0].value = sample::SampleBytes(1, 0);
  batch[1].value = sample::SampleBytes(2, 0, /*v2=*/true);  // carries field 10
  std::vector<FailedMessage> failed;
  (*strict)->Decode(&batch, &failed);
  ASSERT_EQ(batch.size(), 1u);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kUnknownFieldsError);
}

TEST(SchemaRegistry, RefreshSwapsWithoutInvalidatingDecodedMessages) {
  FakeServer server;
  server.Set("http://reg/s", ReadFile(kV1));
  SchemaConfig c;
  c.urls = {"http://reg/s"};
  c.version_based_refresh = false;  // LONG_POLLING: the URL itself
  auto reg = SchemaRegistry::Create(c, server.fetcher());
  ASSERT_TRUE(reg.ok()) << reg.status();
  auto dec = ProtoDecoder::Create(reg->get(), "sluice.sample.SampleLogMessage", false);
  ASSERT_TRUE(dec.ok());
  std::vector<Message> old_batch(1), failed_dummy;
  old_batch[0].value = sample::SampleBytes(5, 0, /*v2=*/true);
  std::vector<FailedMessage> failed;
  (*dec)->Decode(&old_batch, &failed);
  ASSERT_EQ(old_batch.size(), 1u);
  EXPECT_EQ(old_batch[0].decoded->GetDescriptor()->FindFieldByName("vehicle_type"), nullptr);

  EXPECT_FALSE(*(*reg)->Refresh()) << "same bytes: no swap";
  server.Set("http://reg/s", ReadFile(kV2));
  EXPECT_TRUE(*(*reg)->Refresh());
  std::vector<Message> batch(1);
  batch[0].value = sample::SampleBytes(6, 0, /*v2=*/true);
  (*dec)->Decode(&batch, &failed);
  ASSERT_EQ(batch.size(), 1u);
  const auto* field = batch[0].decoded->GetDescriptor()->FindFieldByName("vehicle_type");
  ASSERT_NE(field, nullptr);
  EXPECT_EQ(batch[0].decoded->GetReflection()->GetString(*batch[0].decoded, field), "bike");
  // The old batch still reads fine: its arena pins the old schema.
  EXPECT_EQ(old_batch[0].decoded->GetDescriptor()->full_name(), "sluice.sample.SampleLogMessage");
  EXPECT_GT(old_batch[0].decoded->ByteSizeLong(), 0u);
}

TEST(SchemaRegistry, AFileUrlIsReadAsItIsUnderEitherStrategy) {
  SchemaConfig c;  // VERSION_BASED_REFRESH, Firehose's default
  ASSERT_TRUE(c.version_based_refresh);
  c.urls = {std::string("file://") + kV1};
  auto reg = SchemaRegistry::Create(c);
  ASSERT_TRUE(reg.ok()) << reg.status();
  EXPECT_TRUE((*reg)->Current()->FindMessage("sluice.sample.SampleLogMessage").ok());
}

TEST(SchemaRegistry, VersionBasedRefreshLoadsTheHighestVersion) {
  FakeServer server;
  server.Set("http://reg/s/versions", R"({"versions":[1]})");
  server.Set("http://reg/s/versions/1", ReadFile(kV1));
  server.Set("http://reg/s/versions/2", ReadFile(kV2));
  SchemaConfig c;
  c.urls = {"http://reg/s"};
  c.version_based_refresh = true;
  c.cache_auto_refresh = true;
  c.cache_ttl_ms = 50;
  auto reg = SchemaRegistry::Create(c, server.fetcher());
  ASSERT_TRUE(reg.ok()) << reg.status();
  EXPECT_EQ((*reg)->Current()->version(), "1");
  server.Set("http://reg/s/versions", R"({"versions":[2,1]})");
  // The background thread picks the new version up.
  for (int i = 0; i < 100 && (*reg)->Current()->version() != "2"; ++i) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ((*reg)->Current()->version(), "2");
  auto d = (*reg)->Current()->FindMessage("sluice.sample.SampleLogMessage");
  ASSERT_TRUE(d.ok());
  EXPECT_NE((*d)->FindFieldByName("vehicle_type"), nullptr);
}

using ::sluice::sink::testing::HttpRequest;
using ::sluice::sink::testing::HttpTestServer;

SchemaConfig HttpConfig(const std::string& url) {
  SchemaConfig c;
  c.urls = {url};
  c.fetch_timeout_ms = 20000;
  c.fetch_retries = 2;
  c.fetch_backoff_min_ms = 10;
  return c;
}

TEST(SchemaRegistryFetch, AnAnswerOverTheCapFailsAndIsNotRetried) {
  // Review L4: the body was collected without a bound.
  auto server = HttpTestServer::StartWithResponses([](const HttpRequest&) {
    HttpTestServer::Response r;
    r.body.assign(static_cast<size_t>(kMaxSchemaResponseBytes) + 1, 'x');
    return r;
  });
  ASSERT_TRUE(server.ok());
  std::string url = (*server)->url() + "/huge.desc";
  auto body = MakeFetcher(HttpConfig(url))(url);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), absl::StatusCode::kResourceExhausted) << body.status();
  EXPECT_NE(body.status().message().find(url), std::string::npos);
  EXPECT_EQ((*server)->requests().size(), 1u) << "a too large answer is not fetched again";
}

TEST(SchemaRegistryFetch, OnlyHttpIsSpokenAlsoAfterARedirect) {
  // Review C4: the registry's handle spoke any protocol libcurl knows
  // (gopher://, dict://; ftp:// after a redirect).
  std::unique_ptr<HttpTestServer> server;
  auto started = HttpTestServer::StartWithResponses([&](const HttpRequest&) {
    HttpTestServer::Response r;
    r.status = 302;
    r.headers = {{"Location", absl::StrCat("ftp://127.0.0.1:", server->port(), "/schema.desc")}};
    return r;
  });
  ASSERT_TRUE(started.ok());
  server = *std::move(started);
  SchemaConfig config = HttpConfig("");
  config.fetch_timeout_ms = 3000;
  config.fetch_retries = 0;
  std::string url = server->url() + "/schema.desc";
  auto body = MakeFetcher(config)(url);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(server->connections(), 1) << "the ftp:// redirect target was contacted";
  for (std::string scheme : {"gopher", "dict", "ftp"}) {
    std::string other = absl::StrCat(scheme, "://127.0.0.1:", server->port(), "/x");
    auto direct = MakeFetcher(config)(other);
    ASSERT_FALSE(direct.ok()) << scheme;
    EXPECT_EQ(server->connections(), 1) << scheme << ":// reached the server";
  }
}

// The fetch goes through the shared HttpClient, injected here as a fake:
// the request carries the configured headers, timeout, cap and redirect
// limit, and each outcome maps to the documented error.
class FakeHttp : public ::sluice::HttpClient {
 public:
  std::vector<::sluice::HttpRequest> seen;
  std::vector<absl::StatusOr<::sluice::HttpResult>> answers;
  absl::StatusOr<::sluice::HttpResult> Do(const ::sluice::HttpRequest& r) override {
    seen.push_back(r);
    auto a = answers.front();
    if (answers.size() > 1) answers.erase(answers.begin());
    return a;
  }
};

TEST(SchemaRegistryFetch, UsesTheInjectedHttpClient) {
  SchemaConfig config = HttpConfig("");
  config.fetch_headers = {{"Authorization", "Bearer t0k"}};
  config.fetch_timeout_ms = 1234;
  config.fetch_retries = 1;
  auto fake = std::make_shared<FakeHttp>();
  fake->answers = {absl::UnavailableError("GET http://r: Couldn't connect"),
                   ::sluice::HttpResult{200, "descriptor bytes"}};
  auto body = MakeFetcher(config, fake)("http://r/s.desc");
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(*body, "descriptor bytes");
  ASSERT_EQ(fake->seen.size(), 2u) << "a transport error is retried";
  const ::sluice::HttpRequest& r = fake->seen[0];
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.url, "http://r/s.desc");
  EXPECT_EQ(r.headers, std::vector<std::string>{"Authorization: Bearer t0k"});
  EXPECT_EQ(r.timeout, absl::Milliseconds(1234));
  EXPECT_EQ(r.max_response_bytes, static_cast<size_t>(kMaxSchemaResponseBytes));
  EXPECT_EQ(r.max_redirects, 5);

  fake->seen.clear();
  fake->answers = {absl::FailedPreconditionError("GET http://r: response body exceeds the limit")};
  EXPECT_EQ(MakeFetcher(config, fake)("http://r/s.desc").status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(fake->seen.size(), 1u) << "too large is not retried";
  fake->answers = {::sluice::HttpResult{404, "secret page text"}};
  auto missing = MakeFetcher(config, fake)("http://r/s.desc");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(missing.status().message().find("HTTP 404"), absl::string_view::npos);
  EXPECT_EQ(missing.status().message().find("secret page text"), absl::string_view::npos);
}

// A stop request ends the backoff sleep at once (issue 29: SIGTERM during the
// start-up fetch), and a 404 on a Stencil /versions listing names the
// strategy to set for a plain descriptor file.
TEST(SchemaRegistryFetch, AStopRequestEndsTheBackoffAndVersionsHintsLongPolling) {
  SchemaConfig config = HttpConfig("");
  config.fetch_retries = 4;
  config.fetch_backoff_min_ms = 60000;
  auto fake = std::make_shared<FakeHttp>();
  fake->answers = {::sluice::HttpResult{404, "not found"}};
  std::atomic<bool> stop{false};
  std::thread stopper([&stop] {
    absl::SleepFor(absl::Milliseconds(300));
    stop.store(true);
  });
  const absl::Time start = absl::Now();
  auto body = MakeFetcher(config, fake, [&stop] { return stop.load(); })("http://r/s.desc/versions");
  stopper.join();
  EXPECT_EQ(body.status().code(), absl::StatusCode::kCancelled) << body.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_EQ(fake->seen.size(), 1u);

  config.fetch_retries = 0;
  auto listing = MakeFetcher(config, fake)("http://r/s.desc/versions");
  EXPECT_NE(listing.status().message().find("SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY=LONG_POLLING"),
            absl::string_view::npos)
      << listing.status();
  auto plain = MakeFetcher(config, fake)("http://r/s.desc");
  EXPECT_EQ(plain.status().message().find("LONG_POLLING"), absl::string_view::npos);
}

}  // namespace
}  // namespace sluice::sink
