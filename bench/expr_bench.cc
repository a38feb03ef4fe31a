// Expression engine throughput: a Firehose-style filter over a DynamicMessage
// (target >= 5M evaluations/s on one core) and a policy `when` condition over
// a JSON appeal (target >= 2M/s). Each iteration builds its Environment, as the
// sink does per message. Prints items/s; no timed assertions.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "benchmark/benchmark.h"
#include "common/expr/expr.h"
#include "common/expr/testdata/sample_messages.h"

namespace sluice::expr {
namespace {

namespace pb = google::protobuf;

constexpr char kProtoFilter[] =
    "sampleLogMessage.getDriverLocation().getAltitudeInMeters() * 2 + "
    "sampleLogMessage.getEventTimestamp().getSeconds() > 100";

constexpr char kWhen[] =
    "!($appeal.role contains 'viewer') || $appeal.resource.provider_type == 'gcloud_iam' && "
    "$appeal.options.duration in ['0h','']";

const testing::SampleSchemas& Schemas() {
  static const testing::SampleSchemas* s = [] {
    auto loaded = testing::SampleSchemas::Load();
    if (!loaded.ok()) {
      std::cerr << loaded.status() << "\n";
      std::exit(1);
    }
    return loaded->release();
  }();
  return *s;
}

std::shared_ptr<const Program> MustCompile(const char* src) {
  auto p = Program::Compile(src);
  if (!p.ok()) {
    std::cerr << p.status() << "\n";
    std::exit(1);
  }
  return *p;
}

void BM_ProtoFilter(benchmark::State& state) {
  auto msg = Schemas().Parse("SampleLogMessage", R"pb(
    driver_id: "d-1" vehicle_type: BIKE event_timestamp { seconds: 1700000000 }
    driver_location { latitude: -6.2 longitude: 106.8 altitude_in_meters: 12.5 }
    tags: "night" attributes { key: "city" value: "jakarta" }
  )pb");
  if (!msg.ok()) {
    state.SkipWithError("cannot build message");
    return;
  }
  auto program = MustCompile(kProtoFilter);
  const std::string name = ProtoVariableName((*msg)->GetDescriptor());
  int64_t matched = 0;
  for (auto _ : state) {
    Environment env;
    env.BindMessage(name, msg->get());
    absl::StatusOr<bool> r = program->EvaluateBool(env);
    matched += r.ok() && *r;
  }
  if (matched != state.iterations()) state.SkipWithError("unexpected result");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ProtoFilter);

void BM_PolicyWhenJson(benchmark::State& state) {
  const nlohmann::json appeal = nlohmann::json::parse(R"({
    "id": "8f1c", "account_id": "user@example.com", "account_type": "user",
    "role": "roles/viewer", "created_by": "user@example.com",
    "creator": {"email": "user@example.com", "manager_email": "boss@example.com"},
    "resource": {"id": "r1", "provider_type": "gcloud_iam", "provider_urn": "p:gcloud",
                 "type": "project", "urn": "p:playground", "name": "playground",
                 "details": {"owner": "owner@example.com", "is_sensitive": true}},
    "options": {"duration": "0h"},
    "details": {"reason": "debugging"}
  })");
  auto program = MustCompile(kWhen);
  int64_t matched = 0;
  for (auto _ : state) {
    Environment env;
    env.BindJson("$appeal", &appeal);
    absl::StatusOr<bool> r = program->EvaluateTruthy(env);
    matched += r.ok() && *r;
  }
  if (matched != state.iterations()) state.SkipWithError("unexpected result");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PolicyWhenJson);

void BM_CompileWhen(benchmark::State& state) {
  for (auto _ : state) {
    auto p = Program::Compile(kWhen);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CompileWhen);

}  // namespace
}  // namespace sluice::expr
