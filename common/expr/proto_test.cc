// Protobuf bindings over DynamicMessages built from the sample descriptor set,
// and the sink's Firehose JEXL examples.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "common/expr/expr.h"
#include "common/expr/testdata/sample_messages.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::expr {
namespace {

using ::testing::HasSubstr;
namespace pb = google::protobuf;

class ProtoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto s = testing::SampleSchemas::Load();
    ASSERT_TRUE(s.ok()) << s.status();
    schemas_ = s->release();
  }

  std::unique_ptr<pb::Message> Msg(absl::string_view type, absl::string_view text) {
    auto m = schemas_->Parse(type, text);
    EXPECT_TRUE(m.ok()) << m.status();
    return m.ok() ? *std::move(m) : nullptr;
  }

  // Evaluates `src` with `msg` bound under its Firehose variable name.
  absl::StatusOr<Value> Eval(absl::string_view src, const pb::Message& msg) {
    auto p = Program::Compile(src);
    if (!p.ok()) return p.status();
    name_ = ProtoVariableName(msg.GetDescriptor());
    Environment env;
    env.BindMessage(name_, &msg);
    auto v = (*p)->Evaluate(env);
    if (!v.ok()) return v.status();
    return v->Materialize();
  }

  static testing::SampleSchemas* schemas_;
  std::string name_;
};

testing::SampleSchemas* ProtoTest::schemas_ = nullptr;

constexpr char kLogKey[] = R"pb(
  driver_id: "abcde12345" vehicle_type: BIKE event_timestamp { seconds: 186178 nanos: 5 }
  s2_id: 7
)pb";

constexpr char kLogMessage[] = R"pb(
  driver_id: "d-1"
  vehicle_type: CAR
  event_timestamp { seconds: 1700000000 }
  driver_location { latitude: -6.2 longitude: 106.8 altitude_in_meters: 0.9949166178703309 }
  tags: "night" tags: "airport"
  attributes { key: "city" value: "jakarta" }
  attributes { key: "zone" value: "north" }
  route { altitude_in_meters: 1.5 } route { altitude_in_meters: 2.5 }
  zone_names { key: 1 value: "one" }
  trip_count: 42
  big_number: 18446744073709551615
  rating: 4.5
  is_active: true
  payload: "raw"
  past_vehicles: BIKE past_vehicles: TRUCK
)pb";

TEST_F(ProtoTest, VariableNames) {
  EXPECT_EQ(ProtoVariableName(schemas_->Type("SampleLogKey")), "sampleLogKey");
  EXPECT_EQ(ProtoVariableName(schemas_->Type("SampleLogMessage")), "sampleLogMessage");
  EXPECT_EQ(ProtoVariableName(schemas_->Type("SampleKey")), "sampleKey");
}

TEST_F(ProtoTest, FirehoseExamples) {
  auto key = Msg("SampleLogKey", kLogKey);
  auto msg = Msg("SampleLogMessage", kLogMessage);
  auto skey = Msg("SampleKey", "time { seconds: 22 millis: 810 } id: 'k'");
  struct Case {
    const char* expr;
    const pb::Message* msg;
    bool want;
  };
  for (const Case& c : std::vector<Case>{
           {R"(sampleLogKey.getDriverId()=="abcde12345")", key.get(), true},
           {R"(sampleLogKey.getDriverId()=="other")", key.get(), false},
           {R"(sampleLogKey.getVehicleType()=="BIKE"||sampleLogKey.getEventTimestamp().getSeconds()==186178)",
            key.get(), true},
           {R"(sampleLogKey.getVehicleType()=="CAR"||sampleLogKey.getEventTimestamp().getSeconds()==186178)",
            key.get(), true},
           {R"(sampleLogKey.getVehicleType()=="CAR"||sampleLogKey.getEventTimestamp().getSeconds()==1)",
            key.get(), false},
           {"sampleLogMessage.getDriverLocation().getAltitudeInMeters>0.9949166178703308", msg.get(),
            true},
           {"sampleLogMessage.getDriverLocation().getAltitudeInMeters>0.995", msg.get(), false},
           {"sampleKey.getTime().getSeconds() * 1000 + sampleKey.getTime().getMillis() > 22809",
            skey.get(), true},
           {"sampleKey.getTime().getSeconds() * 1000 + sampleKey.getTime().getMillis() > 22810",
            skey.get(), false},
       }) {
    auto p = Program::Compile(c.expr);
    ASSERT_TRUE(p.ok()) << p.status();
    ASSERT_EQ((*p)->RootIdentifiers().size(), 1u);
    EXPECT_EQ((*p)->RootIdentifiers()[0], ProtoVariableName(c.msg->GetDescriptor()));
    Environment env;
    std::string name = ProtoVariableName(c.msg->GetDescriptor());
    env.BindMessage(name, c.msg);
    absl::StatusOr<bool> r = (*p)->EvaluateBool(env);
    ASSERT_TRUE(r.ok()) << c.expr << ": " << r.status();
    EXPECT_EQ(*r, c.want) << c.expr;
  }
}

TEST_F(ProtoTest, FieldAccessForms) {
  auto msg = Msg("SampleLogMessage", kLogMessage);
  using J = nlohmann::json;
  struct Case {
    const char* expr;
    J want;
  };
  for (const Case& c : std::vector<Case>{
           {"sampleLogMessage.getDriverId()", "d-1"},
           {"sampleLogMessage.getDriverId", "d-1"},
           {"sampleLogMessage.driver_id", "d-1"},
           {"sampleLogMessage.driverId", "d-1"},
           {"sampleLogMessage['driver_id']", "d-1"},
           {"sampleLogMessage.getVehicleType()", "CAR"},
           {"sampleLogMessage.getVehicleTypeValue()", 1},
           {"sampleLogMessage.getEventTimestamp().getSeconds()", 1700000000},
           {"sampleLogMessage.getEventTimestamp().getNanos()", 0},
           {"sampleLogMessage.getTagsList()", J{"night", "airport"}},
           {"sampleLogMessage.getTags()", J{"night", "airport"}},
           {"sampleLogMessage.getTags(1)", "airport"},
           {"sampleLogMessage.getTagsCount()", 2},
           {"sampleLogMessage.getTagsList()[0]", "night"},
           {"'airport' in sampleLogMessage.getTagsList()", true},
           {"sampleLogMessage.getTagsList() contains 'day'", false},
           {"len(sampleLogMessage.tags)", 2},
           {"sampleLogMessage.getAttributesMap()['city']", "jakarta"},
           {"sampleLogMessage.getAttributes().zone", "north"},
           {"sampleLogMessage.attributes['missing']", nullptr},
           {"'city' in sampleLogMessage.getAttributesMap()", true},
           {"sampleLogMessage.getAttributesMap().containsKey('x')", false},
           {"sampleLogMessage.getAttributesMap()", J{{"city", "jakarta"}, {"zone", "north"}}},
           {"sampleLogMessage.getZoneNamesMap()[1]", "one"},
           {"sampleLogMessage.getZoneNamesMap()['1']", "one"},
           {"sampleLogMessage.getZoneNamesCount()", 1},
           {"sampleLogMessage.getRouteList()[1].getAltitudeInMeters()", 2.5},
           {"sampleLogMessage.getRoute(0).getAltitudeInMeters() + 1", 2.5},
           {"sampleLogMessage.getRouteCount()", 2},
           {"sampleLogMessage.getTripCount() / 5", 8},
           {"sampleLogMessage.getBigNumber() > 1e19", true},
           {"sampleLogMessage.getRating()", 4.5},
           {"sampleLogMessage.getIsActive() && true", true},
           {"sampleLogMessage.getPayload()", "raw"},
           {"sampleLogMessage.getPastVehiclesList()", J{"BIKE", "TRUCK"}},
           {"'TRUCK' in sampleLogMessage.getPastVehiclesList()", true},
           {"sampleLogMessage.hasDriverLocation()", true},
           {"sampleLogMessage.hasNickname()", false},
           {"sampleLogMessage.getNickname()", ""},
           {"sampleLogMessage.getDriverId().startsWith('d-')", true},
           {"sampleLogMessage.getDriverId().length()", 3},
           {"sampleLogMessage.getDriverId() + '/' + sampleLogMessage.getTripCount()", "d-1/42"},
           {"sampleLogMessage.getDriverLocation() == sampleLogMessage.getDriverLocation()", true},
           {"sampleLogMessage.getRoute(0) == sampleLogMessage.getRoute(1)", false},
           {"sampleLogMessage.getDriverLocation()",
            J{{"latitude", -6.2}, {"longitude", 106.8}, {"altitude_in_meters", 0.9949166178703309}}},
       }) {
    auto v = Eval(c.expr, *msg);
    ASSERT_TRUE(v.ok()) << c.expr << ": " << v.status();
    EXPECT_EQ(v->ToJson(), c.want) << c.expr;
  }
}

TEST_F(ProtoTest, JavaGetterNamesFollowProtocCamelCase) {
  auto key = Msg("SampleLogKey", kLogKey);
  auto v = Eval("sampleLogKey.getS2Id()", *key);  // field s2_id: Java capitalizes after a digit
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->int_value(), 7);
}

TEST_F(ProtoTest, UnsetFieldsReadAsDefaults) {
  auto msg = Msg("SampleLogMessage", "");
  using J = nlohmann::json;
  struct Case {
    const char* expr;
    J want;
  };
  for (const Case& c : std::vector<Case>{
           {"sampleLogMessage.getDriverId()", ""},
           {"sampleLogMessage.getVehicleType()", "VEHICLE_TYPE_UNSPECIFIED"},
           {"sampleLogMessage.getDriverLocation().getAltitudeInMeters()", 0.0},
           {"sampleLogMessage.getEventTimestamp().getSeconds()", 0},
           {"sampleLogMessage.getTagsList()", J::array()},
           {"sampleLogMessage.getAttributesMap()", J::object()},
           {"sampleLogMessage.hasDriverLocation()", false},
           {"sampleLogMessage.getDriverLocation()", J::object()},
       }) {
    auto v = Eval(c.expr, *msg);
    ASSERT_TRUE(v.ok()) << c.expr << ": " << v.status();
    EXPECT_EQ(v->ToJson(), c.want) << c.expr;
  }
}

TEST_F(ProtoTest, Errors) {
  auto msg = Msg("SampleLogMessage", kLogMessage);
  auto key = Msg("SampleLogKey", kLogKey);
  struct Case {
    const char* expr;
    const pb::Message* msg;
    const char* want;
  };
  for (const Case& c : std::vector<Case>{
           {"sampleLogKey.getFooBar() == 1", key.get(),
            "unknown field 'getFooBar' in message type sluice.expr.test.SampleLogKey in "
            "`sampleLogKey.getFooBar()` at column 1"},
           {"sampleLogMessage.getDriverLocation().getAltitude > 1", msg.get(),
            "unknown field 'getAltitude' in message type sluice.expr.test.DriverLocation in "
            "`sampleLogMessage.getDriverLocation().getAltitude` at column 1"},
           {"sampleLogMessage.nope", msg.get(), "unknown field 'nope' in message type"},
           {"sampleLogMessage.getDriverId(1)", msg.get(), "'getDriverId' takes 0 arguments, got 1"},
           {"sampleLogMessage.getTags(5)", msg.get(), "index 5 out of range (size 2)"},
           {"sampleLogMessage.getTags('x')", msg.get(), "list index must be an int"},
           {"sampleLogMessage.getDriverId() > 1", msg.get(),
            "type mismatch: cannot apply '>' to string and int"},
           {"sampleLogMessage.getDriverLocation() + 1", msg.get(),
            "cannot apply '+' to map and int"},
           {"sampleLogKey.getDriverId()", msg.get(), "unknown variable 'sampleLogKey'"},
       }) {
    auto v = Eval(c.expr, *c.msg);
    ASSERT_FALSE(v.ok()) << c.expr;
    EXPECT_THAT(std::string(v.status().message()), HasSubstr(c.want)) << c.expr;
  }
}

TEST_F(ProtoTest, StrictFilterResultMustBeBool) {
  auto key = Msg("SampleLogKey", kLogKey);
  auto p = Program::Compile("sampleLogKey.getDriverId()");
  ASSERT_TRUE(p.ok());
  Environment env;
  env.BindMessage("sampleLogKey", key.get());
  auto r = (*p)->EvaluateBool(env);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("must evaluate to a bool, got string"));
}

TEST_F(ProtoTest, CheckMessageType) {
  const pb::Descriptor* t = schemas_->Type("SampleLogMessage");
  auto ok = Program::Compile(
      "sampleLogMessage.getDriverLocation().getAltitudeInMeters() > 1 && "
      "sampleLogMessage.getRoute(0).getLatitude() < 2 && "
      "sampleLogMessage.getAttributesMap().anything == 'x' && other.whatever");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE((*ok)->CheckMessageType("sampleLogMessage", t).ok());
  auto bad = Program::Compile("1 < 2 && sampleLogMessage.getRoute(0).getAltitude() > 1");
  ASSERT_TRUE(bad.ok());
  absl::Status s = (*bad)->CheckMessageType("sampleLogMessage", t);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("unknown field 'getAltitude' in message type "
                        "sluice.expr.test.DriverLocation in `sampleLogMessage.getRoute(0)."
                        "getAltitude()` at column 10"));
}

// One compiled program shared by threads, each evaluating over two message
// types (so the per-node field cache sees concurrent misses and hits).
TEST_F(ProtoTest, ConcurrentEvaluation) {
  auto key = Msg("SampleLogKey", kLogKey);
  auto msg = Msg("SampleLogMessage", kLogMessage);
  auto p = Program::Compile("m.getDriverId() + ':' + m.getEventTimestamp().getSeconds()");
  ASSERT_TRUE(p.ok());
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5000; ++i) {
        bool use_key = (i + t) % 2 == 0;
        Environment env;
        env.BindMessage("m", use_key ? key.get() : msg.get());
        auto v = (*p)->Evaluate(env);
        std::string want = use_key ? "abcde12345:186178" : "d-1:1700000000";
        if (!v.ok() || v->string_value() != want) ++bad;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST_F(ProtoTest, MessageToJsonAndMaterialize) {
  auto key = Msg("SampleLogKey", kLogKey);
  Value v = Value::Message(key.get());
  EXPECT_EQ(v.kind(), Value::Kind::kMap);
  EXPECT_FALSE(v.IsZero());
  EXPECT_EQ(v.ToJson(), (nlohmann::json{{"driver_id", "abcde12345"},
                                        {"vehicle_type", "BIKE"},
                                        {"event_timestamp", {{"seconds", 186178}, {"nanos", 5}}},
                                        {"s2_id", 7}}));
  Value owned = v.Materialize();
  EXPECT_EQ(owned.message(), nullptr);
  EXPECT_EQ(owned.ToJson(), v.ToJson());
  auto f = v.Find("driver_id");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->string_value(), "abcde12345");
}

}  // namespace
}  // namespace sluice::expr
