#include "sink/schema/schema_registry.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "sink/sample/sample_gen.h"
#include "sink/schema/proto_decoder.h"

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

TEST(SchemaRegistry, RefreshSwapsWithoutInvalidatingDecodedMessages) {
  FakeServer server;
  server.Set("http://reg/s", ReadFile(kV1));
  SchemaConfig c;
  c.urls = {"http://reg/s"};
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

}  // namespace
}  // namespace sluice::sink
