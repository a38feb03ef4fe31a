// In-process cost of sluice-sink's per-record path, without the broker:
// decode (DynamicMessage on a batch arena) + JEXL filter + decorated log sink
// writing to /dev/null, in batches of 500, over N ~100-byte sample records.
// Separates sluice-sink's own CPU cost from the mock broker's fetch rate.
// Run: bazel run -c opt //bench/sink_kafka:pipeline_bench [-- N]
#include <cstdio>
#include <cstdlib>

#include "absl/time/clock.h"
#include "sink/decorators/factory.h"
#include "sink/filter/jexl_filter.h"
#include "sink/sample/sample_gen.h"
#include "sink/schema/proto_decoder.h"
#include "sink/sinks/log/log_sink.h"

using namespace sluice::sink;  // NOLINT: benchmark driver

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1000000;
  SchemaConfig sc;
  sc.urls = {"file://sink/sample/sample_cc.desc"};
  sc.proto_class = "io.sluice.sample.SampleProto$SampleLogMessage";
  auto registry = SchemaRegistry::Create(sc);
  if (!registry.ok()) {
    std::fprintf(stderr, "%s\n", registry.status().ToString().c_str());
    return 1;
  }
  std::vector<std::string> values;
  for (int i = 0; i < 1000; ++i) values.push_back(sluice::sample::SampleBytes(i, 1795342395683));
  FILE* devnull = std::fopen("/dev/null", "w");
  struct Case {
    const char* name;
    const char* filter;
  } cases[] = {{"keeps all", "sampleLogMessage.getAmountPaidCents() >= 0"},
               {"keeps 10%", "sampleLogMessage.getDriverId() == \"driver-3\""}};
  for (const Case& c : cases) {
    FilterConfig fc;
    fc.jexl = true;
    fc.expression = c.filter;
    fc.proto_class = "sluice.sample.SampleLogMessage";
    auto filter = *JexlFilter::Create(fc, sc, registry->get());
    auto decoder = *ProtoDecoder::Create(registry->get(), sc.proto_class, false);
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
    std::printf("pipeline (%s): %d records in %.2f s = %.0f records/s (%lld kept)\n", c.name, n, s,
                n / s, static_cast<long long>(kept));
  }
  return 0;
}
