// Throughput of the mongodb sink against integration/mongo_fake (no MongoDB
// server is packaged here), beside MongoDB's official Python driver loading
// the same documents into the same fake in the same run (pymongo_bulk.py:
// unordered bulk_write of ReplaceOne upserts, 500 per batch). The fake is
// pure Python (Debian's bson has no C extension), so it is likely the
// ceiling of both; the ratio says how much of that ceiling the sink reaches.
// N ~100-byte TestMessage records, batches of 500, three alternating rounds.
// Prints figures; asserts nothing. Run:
//   bazel run -c opt //bench/sinks:mongo_bench [-- N]
#include <ctime>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/sinks/bench_messages.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/util/json_util.h"
#include "integration/mongo_fake/mongo_fake_process.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/common/proto_values.h"
#include "sink/sinks/mongodb/mongo_sink.h"
#include "sink/sinks/testing/server_process.h"

namespace sk = sluice::sink;
namespace skt = sluice::sink::testing;
using sluice::integration::MongoFake;

namespace {

absl::StatusOr<const google::protobuf::Descriptor*> FindGenerated(absl::string_view name) {
  const auto* d =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(name));
  if (d == nullptr) return absl::NotFoundError(absl::StrCat("no message ", name));
  return d;
}

// The sink's documents per record ({_id: order_number, ...proto JSON}), one
// JSON per line, for the pymongo baseline.
std::string WriteDocuments(const std::vector<std::vector<sk::Message>>& batches) {
  std::string path = skt::PrivateDir("mongo_bench") + "/docs.jsonl";
  std::ofstream out(path);
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  for (const auto& b : batches) {
    for (const sk::Message& m : b) {
      std::string text;
      (void)google::protobuf::util::MessageToJsonString(*m.decoded, &text, options);
      nlohmann::json doc = nlohmann::json::parse(text);
      doc["_id"] = doc["order_number"];
      out << doc.dump() << "\n";
    }
  }
  return path;
}

// Documents/s of the sink pushing every batch into fleet.<coll>, 0 on failure.
double SinkRate(const char* name, MongoFake& fake, const std::string& coll,
                const std::vector<std::vector<sk::Message>>& batches) {
  sk::Env env(std::map<std::string, std::string>{
      {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
      {"SINK_MONGO_CONNECTION_URLS", fake.address()},
      {"SINK_MONGO_DB_NAME", "fleet"},
      {"SINK_MONGO_COLLECTION_NAME", coll},
      {"SINK_MONGO_PRIMARY_KEY", "order_number"}});
  sk::NoopMetrics metrics;
  auto config = sk::MongoSinkConfig::FromEnv(env, sk::SinkContext{&env, &metrics, &FindGenerated});
  auto sink = config.ok() ? sk::MongoSink::Create(*std::move(config), &metrics)
                          : absl::StatusOr<std::unique_ptr<sk::MongoSink>>(config.status());
  if (!sink.ok()) {
    std::printf("%s: %s\n", name, std::string(sink.status().message()).c_str());
    return 0;
  }
  sluice::bench::PushResult r = sluice::bench::PushBatches(**sink, batches);
  const int64_t n = r.records, failed = r.failed;
  const double s = r.seconds;
  // The fake runs in another process: this process's CPU time is the sink's
  // own cost (Prepare, libmongoc's encoding, reading the replies).
  double cpu = r.cpu_seconds;
  std::printf("%s: %lld documents in %.2f s = %.0f documents/s (%lld failed; Prepare %.0f%%; "
              "sink CPU %.2f s = %.0f documents per CPU second)\n",
              name, static_cast<long long>(n), s, n / s, static_cast<long long>(failed),
              100 * r.prepare_share(), cpu, cpu > 0 ? n / cpu : 0);
  return failed == 0 ? n / s : 0;
}

// The same records decoded as sluice-sink decodes them: DynamicMessages of a
// descriptor pool that is not the generated one (as from the schema registry).
struct DynamicBatches {
  std::unique_ptr<sk::OwnedDescriptor> descriptor;
  std::unique_ptr<google::protobuf::DynamicMessageFactory> factory;
  std::vector<std::vector<sk::Message>> batches;
};
DynamicBatches Dynamic(const std::vector<std::vector<sk::Message>>& batches) {
  DynamicBatches out;
  out.descriptor = *sk::OwnedDescriptor::Copy(sk::testing::TestMessage::descriptor());
  out.factory = std::make_unique<google::protobuf::DynamicMessageFactory>();
  const google::protobuf::Message* prototype = out.factory->GetPrototype(out.descriptor->get());
  for (const auto& b : batches) {
    out.batches.push_back(b);
    for (sk::Message& m : out.batches.back()) {
      std::shared_ptr<google::protobuf::Message> decoded(prototype->New());
      decoded->ParseFromString(m.value);
      m.decoded = std::move(decoded);
    }
  }
  return out;
}

// Documents/s of pymongo_bulk.py into fleet.<coll>, 0 on failure.
double PymongoRate(MongoFake& fake, const std::string& coll, const std::string& docs) {
  std::string out = skt::RunShell(absl::StrCat(
      "/usr/bin/python3 ", skt::ShellQuote(sluice::integration::Runfile("bench/sinks/pymongo_bulk.py")),
      " ", fake.address(), " fleet ", coll, " ", skt::ShellQuote(docs), " 500 2>&1"));
  long long n = 0;
  double s = 0;
  if (std::sscanf(out.c_str(), "%lld %lf", &n, &s) != 2 || s <= 0) {
    std::printf("pymongo bulk_write: failed: %s\n", out.c_str());
    return 0;
  }
  std::printf("pymongo bulk_write (baseline): %lld documents in %.2f s = %.0f documents/s\n", n, s, n / s);
  return n / s;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const int n = argc > 1 ? std::atoi(argv[1]) : 50000;
  const auto batches = sluice::bench::BenchBatches(n, 500);
  auto fake = MongoFake::Start();
  if (!fake.ok()) {
    std::printf("mongo_fake: %s\n", std::string(fake.status().message()).c_str());
    return 1;
  }
  std::string docs = WriteDocuments(batches);
  const DynamicBatches dynamic = Dynamic(batches);
  std::vector<double> sink_rates, dynamic_rates, baseline_rates, ratios;
  for (int round = 0; round < 3; ++round) {
    // Fresh collections each round: every write is an upsert that inserts.
    std::string suffix = std::to_string(round);
    double baseline = PymongoRate(**fake, "pymongo" + suffix, docs);
    double rate = SinkRate("mongodb sink", **fake, "sink" + suffix, batches);
    double dynamic_rate =
        SinkRate("mongodb sink, DynamicMessage input", **fake, "dynamic" + suffix, dynamic.batches);
    for (const char* coll : {"pymongo", "sink", "dynamic"}) (*fake)->Drop("fleet", coll + suffix);
    sink_rates.push_back(rate);
    dynamic_rates.push_back(dynamic_rate);
    baseline_rates.push_back(baseline);
    ratios.push_back(baseline > 0 ? rate / baseline : 0);
  }
  for (auto* v : {&sink_rates, &dynamic_rates, &baseline_rates, &ratios}) std::sort(v->begin(), v->end());
  std::printf("median of 3 rounds: mongodb sink %.0f documents/s (DynamicMessage input %.0f), pymongo "
              "%.0f documents/s, sink/pymongo %.2fx (target >= 20k documents/s)\n",
              sink_rates[1], dynamic_rates[1], baseline_rates[1], ratios[1]);
  return 0;
}
