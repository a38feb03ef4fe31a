// Deterministic sample records (sink/sample/sample.proto) for `make run`, the
// integration tests and the benchmark.
#ifndef SLUICE_SINK_SAMPLE_SAMPLE_GEN_H_
#define SLUICE_SINK_SAMPLE_SAMPLE_GEN_H_

#include <cstdint>
#include <string>

#include "sink/sample/sample.pb.h"

namespace sluice::sample {

// Fills `out` with record number `i`: order_number "ORD-<i>", driver_id
// "driver-<i % 10>", status cycling ONLINE/OFFLINE/ON_TRIP, a pickup in one of
// four cities, event_timestamp = `now_ms`, two tags, and one waypoint. The
// serialised size is about 100 bytes.
void MakeSample(uint64_t i, int64_t now_ms, SampleLogMessage* out);

// Serialised MakeSample(i). With `v2`, also carries field 10 (vehicle_type,
// from testdata/sample_v2.proto) = "bike" as an unknown field of v1.
std::string SampleBytes(uint64_t i, int64_t now_ms, bool v2 = false);

}  // namespace sluice::sample

#endif  // SLUICE_SINK_SAMPLE_SAMPLE_GEN_H_
