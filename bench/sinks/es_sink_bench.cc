// Throughput of the elasticsearch sink against integration/es_fake, beside
// the fake's ceiling measured in the same run by Elastic's official client
// (helpers.bulk, one request in flight, the same documents and batch size,
// bench/sinks/es_client_bulk.js). N ~100-byte TestMessage records in batches
// of B through Prepare/Execute (one worker), as protobuf input and as JSON
// input (protobuf records decoded as dynamic messages of a private pool, as
// the schema registry gives them). Prints figures; asserts nothing. Run:
//   bazel run -c opt //bench/sinks:es_sink_bench [-- N [B]]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/sinks/bench_messages.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/util/json_util.h"
#include "integration/es_fake/es_fake_process.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/elasticsearch/es_sink.h"
#include "sink/sinks/testing/server_process.h"

namespace sk = sluice::sink;

namespace {

absl::StatusOr<const google::protobuf::Descriptor*> FindGenerated(absl::string_view name) {
  const auto* d =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(name));
  if (d == nullptr) return absl::NotFoundError(absl::StrCat("no message ", name));
  return d;
}

// Pushes every batch through a new EsSink; returns documents/s (0 on failure).
double SinkRate(const char* name, sluice::integration::EsFake& fake, bool protobuf,
                const std::vector<std::vector<sk::Message>>& batches) {
  std::map<std::string, std::string> vars = {{"SINK_ES_CONNECTION_URLS", fake.host_port()},
                                             {"SINK_ES_INDEX_NAME", "bench-sink"},
                                             {"SINK_ES_ID_FIELD", "order_number"}};
  if (protobuf) vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
  sk::Env env(vars);
  sk::NoopMetrics metrics;
  sk::SinkContext ctx{&env, &metrics, nullptr};
  if (protobuf) ctx.find_message = &FindGenerated;
  auto sink = sk::CreateFromContext<sk::EsSink>(ctx);
  if (!sink.ok()) {
    std::printf("%s: %s\n", name, std::string(sink.status().message()).c_str());
    return 0;
  }
  auto* es = static_cast<sk::EsSink*>(sink->get());
  sluice::bench::PushResult r = sluice::bench::PushBatches(*es, batches);
  const int64_t n = r.records, failed = r.failed;
  const double s = r.seconds;
  // Prepare alone (the sink's own CPU per document: JSON rendering, NDJSON).
  absl::Time q0 = absl::Now();
  for (const auto& b : batches) (void)es->Prepare(b);
  double prepare_only_us = absl::ToDoubleMicroseconds(absl::Now() - q0) / static_cast<double>(n);
  (void)es->Execute();
  fake.Reset();
  std::printf("%-40s %7lld docs in %6.2f s = %8.0f docs/s (%lld failed; Prepare %.0f%% of the time; Prepare alone %.1f us/doc)\n",
              name, static_cast<long long>(n), s, n / s, static_cast<long long>(failed),
              100 * r.prepare_share(), prepare_only_us);
  return failed == 0 ? n / s : 0;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  int64_t n = 100000, batch = 500;
  if (argc > 1) (void)absl::SimpleAtoi(argv[1], &n);
  if (argc > 2) (void)absl::SimpleAtoi(argv[2], &batch);
  auto fake = sluice::integration::EsFake::Start();
  if (!fake.ok()) {
    std::printf("es_fake: %s\n", std::string(fake.status().message()).c_str());
    return 1;
  }
  // The same records as protobuf and as JSON (their proto JSON, the sink's document).
  // Declared before the messages, which must be destroyed first.
  auto owned = sk::OwnedDescriptor::Copy(sk::testing::TestMessage::descriptor());
  if (!owned.ok()) return 1;
  google::protobuf::DynamicMessageFactory factory;
  std::vector<std::vector<sk::Message>> proto_batches, json_batches;
  std::string docs_file = sk::testing::PrivateDir("es_sink_bench") + "/docs.ndjson";
  std::ofstream docs(docs_file);
  for (int64_t i = 0; i < n; ++i) {
    if (i % batch == 0) {
      proto_batches.emplace_back();
      json_batches.emplace_back();
    }
    sk::Message m = sluice::bench::BenchMessage(i);
    // As the worker hands them over: decoded with a schema registry's pool.
    std::unique_ptr<google::protobuf::Message> dyn(factory.GetPrototype((*owned)->get())->New());
    dyn->ParseFromString(m.value);
    m.decoded = std::move(dyn);
    std::string text;
    google::protobuf::util::JsonPrintOptions opts;
    opts.preserve_proto_field_names = true;
    (void)google::protobuf::util::MessageToJsonString(*m.decoded, &text, opts);
    docs << text << "\n";
    sk::Message j = m;
    j.decoded = nullptr;
    j.value = text;
    j.json = std::make_shared<const nlohmann::json>(nlohmann::json::parse(text));
    proto_batches.back().push_back(std::move(m));
    json_batches.back().push_back(std::move(j));
  }
  docs.close();
  std::printf("es_sink_bench: %lld records, batches of %lld, es_fake %s (node, single-threaded)\n",
              static_cast<long long>(n), static_cast<long long>(batch), (*fake)->base_url().c_str());

  double proto = SinkRate("elasticsearch sink, protobuf input", **fake, true, proto_batches);
  (*fake)->Reset();
  double json = SinkRate("elasticsearch sink, JSON input", **fake, false, json_batches);
  (*fake)->Reset();

  // The baseline: the official client's bulk helper into the same fake.
  std::string modules = sk::testing::RunShell("scripts/install-npm-deps.sh 2>/dev/null");
  while (!modules.empty() && modules.back() == '\n') modules.pop_back();
  std::string out = sk::testing::RunShell(absl::StrCat(
      "NODE_PATH=", sk::testing::ShellQuote(modules), " node bench/sinks/es_client_bulk.js ",
      (*fake)->base_url(), " ", sk::testing::ShellQuote(docs_file), " ", batch));
  nlohmann::json client = nlohmann::json::parse(out, nullptr, false);
  if (client.is_discarded() || !client.contains("rate")) {
    std::printf("official client baseline failed: %s\n", out.c_str());
    return 1;
  }
  double base = client["rate"].get<double>();
  nlohmann::json stats = (*fake)->Stats();
  std::printf("%-40s %7lld docs in %6.2f s = %8.0f docs/s (%lld failed; %.0f docs per request)\n",
              "@elastic/elasticsearch helpers.bulk", client["docs"].get<long long>(),
              client["seconds"].get<double>(), base, client["failed"].get<long long>(),
              stats["bulkItems"].get<double>() / std::max(1, stats["bulkRequests"].get<int>()));
  if (base > 0) {
    std::printf("sink / official client: protobuf %.2f, JSON %.2f (target: >= 20000 docs/s)\n",
                proto / base, json / base);
  }
  return 0;
}
