// libFuzzer target: compile + evaluate arbitrary expressions against a JSON
// appeal and a DynamicMessage. Built and run by scripts/fuzz-expr.sh (clang,
// ASan + UBSan), not by Bazel. Any crash, sanitizer report or exception fails.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/expr/expr.h"
#include "common/expr/testdata/sample.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/text_format.h"

namespace {

namespace pb = google::protobuf;

struct Fixture {
  nlohmann::json appeal;
  pb::DynamicMessageFactory factory;
  std::unique_ptr<pb::Message> message;  // a DynamicMessage, as the sink sees it
  std::unique_ptr<pb::Message> key;
  std::string message_name;
  std::string key_name;

  Fixture() {
    appeal = nlohmann::json::parse(R"({
      "role": "viewer", "account_id": "user@example.com",
      "creator": {"email": "user@example.com", "manager_email": "boss@example.com"},
      "resource": {"type": "dataset", "urn": "p:playground", "provider_type": "bigquery",
                   "details": {"owner": "o@example.com", "is_sensitive": true, "n": [1, 2.5, "x", null]}},
      "options": {"duration": "24h"}, "details": {"foo": {"foo": "foobar"}},
      "count": 3, "ratio": 0.5, "big": 18446744073709551615, "neg": -9223372036854775808,
      "empty": [], "nothing": null
    })");
    const pb::Descriptor* d = sluice::expr::test::SampleLogMessage::descriptor();
    message.reset(factory.GetPrototype(d)->New());
    pb::TextFormat::ParseFromString(R"pb(
      driver_id: "d-1" vehicle_type: BIKE event_timestamp { seconds: 186178 nanos: 7 }
      driver_location { altitude_in_meters: 0.9949166178703309 }
      tags: "a" tags: "b" attributes { key: "k" value: "v" } route { latitude: 1 }
      zone_names { key: 3 value: "z" } trip_count: 9223372036854775807
      big_number: 18446744073709551615 rating: 1.5 is_active: true payload: "\xff\x00"
      past_vehicles: CAR
    )pb", message.get());
    const pb::Descriptor* kd = sluice::expr::test::SampleKey::descriptor();
    key.reset(factory.GetPrototype(kd)->New());
    pb::TextFormat::ParseFromString("time { seconds: 22 millis: 810 }", key.get());
    message_name = sluice::expr::ProtoVariableName(d);
    key_name = sluice::expr::ProtoVariableName(kd);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* fx = new Fixture();
  absl::string_view src(reinterpret_cast<const char*>(data), size);
  auto program = sluice::expr::Program::Compile(src);
  if (!program.ok()) return 0;
  const sluice::expr::Program& p = **program;
  (void)p.RootIdentifiers();
  (void)p.CheckMessageType(fx->message_name, fx->message->GetDescriptor());
  sluice::expr::Environment env;
  env.BindJson("$appeal", &fx->appeal)
      .BindMessage(fx->message_name, fx->message.get())
      .BindMessage(fx->key_name, fx->key.get())
      .BindValue("x", sluice::expr::Value::Int(7));
  auto v = p.Evaluate(env);
  if (v.ok()) {
    (void)v->ToJson();
    (void)v->DebugString();
    // Materialize must preserve the value (compared as JSON, where NaN is null).
    if (v->Materialize().ToJson() != v->ToJson()) __builtin_trap();
    (void)(*v == *v);
  }
  (void)p.EvaluateBool(env);
  (void)p.EvaluateTruthy(env);
  return 0;
}
