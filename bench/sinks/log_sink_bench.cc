// Log sink throughput: N decoded ~100-byte protobuf messages in batches of
// 500, rendered and written to /dev/null (one fwrite + fflush per batch).
//   bazel run //bench/sinks:log_sink_bench -- [messages]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "bench/sinks/bench_messages.h"
#include "sink/sinks/log/log_sink.h"

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1000000;
  const int batch = argc > 2 ? std::atoi(argv[2]) : 500;
  auto batches = sluice::bench::BenchBatches(n, batch);
  std::printf("log sink bench: %lld messages (%zu bytes each), batch %d\n",
              static_cast<long long>(n), batches[0][0].value.size(), batch);
  for (bool decoded : {true, false}) {
    if (!decoded) {
      for (auto& b : batches)
        for (auto& m : b) m.decoded = nullptr;
    }
    FILE* out = std::fopen("/dev/null", "w");
    sluice::sink::LogSink sink(out);
    auto start = std::chrono::steady_clock::now();
    std::clock_t cpu0 = std::clock();
    size_t failed = 0;
    for (const auto& b : batches) failed += sink.Push(b).size();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    std::fclose(out);
    std::printf("  %-26s %9.0f msgs/s wall (%.3f s), %9.0f msgs per CPU-second, %zu failed\n",
                decoded ? "decoded (text form):" : "raw value (json input):", n / secs, secs,
                n / cpu, failed);
  }
  return 0;
}
