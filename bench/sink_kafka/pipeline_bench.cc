// In-process cost of sluice-sink's per-record path, without the broker:
// decode + filter + decorated log sink writing to /dev/null, in batches of
// 500, over N sample records: protobuf (~100 bytes, DynamicMessage on a batch
// arena, JEXL filter) and the same records as JSON (JsonDecoder, JEXL over
// JSON and FILTER_ENGINE=JSON). Separates sluice-sink's own CPU cost from the
// mock broker's fetch rate.
// Run: bazel run -c opt //bench/sink_kafka:pipeline_bench [-- N [CASE]]
// CASE (a row's index, 0-3) runs that row alone, e.g. under callgrind.
#include <cstdio>
#include <cstdlib>

#include "absl/time/clock.h"
#include "google/protobuf/util/json_util.h"
#include "sink/decorators/factory.h"
#include "sink/filter/jexl_filter.h"
#include "sink/filter/json_filter.h"
#include "sink/sample/sample_gen.h"
#include "sink/schema/json_decoder.h"
#include "sink/schema/proto_decoder.h"
#include "sink/sinks/log/log_sink.h"

using namespace sluice::sink;  // NOLINT: benchmark driver

namespace {

// Pushes n records (cycling through `values`) through decode, filter and the
// decorated log sink, and prints the rate.
void Run(const char* name, int n, const std::vector<std::string>& values, Decoder* decoder,
         Filter* filter, FILE* devnull) {
  NoopMetrics metrics;
  auto dispatcher = *BuildDispatcher(ErrorConfig{}, std::make_unique<LogSink>(devnull), &metrics);
  std::vector<Message> batch;
  std::vector<FailedMessage> failed;
  absl::Time t0 = absl::Now();
  int64_t kept = 0;
  for (int done = 0; done < n; done += 500) {
    batch.clear();
    for (int i = 0; i < 500; ++i) {
      Message& m = batch.emplace_back();
      m.topic = "bench";
      m.partition = i % 4;
      m.offset = done + i;
      m.key = "ORD-1";
      m.value = values[(done + i) % values.size()];
      m.timestamp_ms = 1795342395683;
    }
    failed.clear();
    decoder->Decode(&batch, &failed);
    filter->Apply(&batch, &failed);
    kept += static_cast<int64_t>(batch.size());
    DispatchResult r = dispatcher->Dispatch(batch, std::move(failed));
    if (!r.failed.empty()) std::fprintf(stderr, "unexpected failures\n");
  }
  double s = absl::ToDoubleSeconds(absl::Now() - t0);
  std::printf("pipeline (%s): %d records in %.2f s = %.0f records/s (%lld kept)\n", name, n, s,
              n / s, static_cast<long long>(kept));
}

std::string ToJson(const std::string& proto_bytes) {
  sluice::sample::SampleLogMessage m;
  m.ParseFromString(proto_bytes);
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(m, &out, opts);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1000000;
  const int only = argc > 2 ? std::atoi(argv[2]) : -1;
  SchemaConfig sc;
  sc.urls = {"file://sink/sample/sample_cc.desc"};
  sc.proto_class = "io.sluice.sample.SampleProto$SampleLogMessage";
  auto registry = SchemaRegistry::Create(sc);
  if (!registry.ok()) {
    std::fprintf(stderr, "%s\n", registry.status().ToString().c_str());
    return 1;
  }
  std::vector<std::string> values, json_values;
  for (int i = 0; i < 1000; ++i) values.push_back(sluice::sample::SampleBytes(i, 1795342395683));
  for (const std::string& v : values) json_values.push_back(ToJson(v));
  std::printf("mean sizes: protobuf %.0f bytes, JSON %.0f bytes\n",
              [&] { double t = 0; for (auto& v : values) t += v.size(); return t / values.size(); }(),
              [&] { double t = 0; for (auto& v : json_values) t += v.size(); return t / json_values.size(); }());
  FILE* devnull = std::fopen("/dev/null", "w");
  struct Case {
    const char* name;
    const char* filter;
  } cases[] = {{"protobuf, JEXL keeps all", "sampleLogMessage.getAmountPaidCents() >= 0"},
               {"protobuf, JEXL keeps 10%", "sampleLogMessage.getDriverId() == \"driver-3\""}};
  for (int i = 0; i < 2; ++i) {
    const Case& c = cases[i];
    if (only >= 0 && only != i) continue;
    FilterConfig fc;
    fc.jexl = true;
    fc.expression = c.filter;
    fc.proto_class = "sluice.sample.SampleLogMessage";
    auto filter = *JexlFilter::Create(fc, sc, registry->get());
    auto decoder = *ProtoDecoder::Create(registry->get(), sc.proto_class, false);
    Run(c.name, n, values, decoder.get(), filter.get(), devnull);
  }
  SchemaConfig json_input;
  json_input.data_type = SchemaConfig::DataType::kJson;
  JsonDecoder json_decoder(false);
  FilterConfig jexl;
  jexl.jexl = jexl.jexl_json = true;
  jexl.expression = "message.getDriverId() != ''";
  if (only < 0 || only == 2) {
    Run("JSON, JEXL keeps all", n, json_values, &json_decoder,
        JexlFilter::Create(jexl, json_input, nullptr)->get(), devnull);
  }
  FilterConfig schema;
  schema.engine = FilterConfig::Engine::kJson;
  schema.json_schema =
      R"({"required":["driver_id"],"properties":{"driver_id":{"type":"string","pattern":"^driver-"}}})";
  if (only < 0 || only == 3) {
    Run("JSON, JSON Schema keeps all", n, json_values, &json_decoder,
        JsonFilter::Create(schema, json_input, nullptr)->get(), devnull);
  }
  return 0;
}
