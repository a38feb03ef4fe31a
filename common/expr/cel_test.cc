#include "common/expr/cel.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/expr/testdata/sample_messages.h"

namespace sluice::expr {
namespace {

using ::testing::HasSubstr;

class CelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing::SampleSchemas::Load();
    ASSERT_TRUE(s.ok()) << s.status();
    schemas_ = *std::move(s);
    type_ = schemas_->Type("SampleLogMessage");
  }
  absl::StatusOr<bool> Eval(absl::string_view expr, absl::string_view text) {
    auto e = CelExpression::Compile(expr, kVar, type_);
    if (!e.ok()) return e.status();
    auto m = schemas_->Parse("SampleLogMessage", text);
    if (!m.ok()) return m.status();
    return e->Evaluate(**m);
  }
  static constexpr absl::string_view kVar = "sluice.expr.test.SampleLogMessage";
  std::unique_ptr<testing::SampleSchemas> schemas_;
  const google::protobuf::Descriptor* type_ = nullptr;
};

TEST_F(CelTest, FirehoseDocExamples) {
  const char* msg = R"pb(driver_id: "402" is_active: false tags: "400" tags: "503" trip_count: 7)pb";
  // The shapes of goto Firehose's grpc-sink.md examples.
  EXPECT_TRUE(*Eval("sluice.expr.test.SampleLogMessage.is_active == false && "
                    "sluice.expr.test.SampleLogMessage.tags.exists(e, int(e) >= 400 && int(e) <= 500)",
                    msg));
  EXPECT_TRUE(*Eval("sluice.expr.test.SampleLogMessage.tags.exists(e, e == \"400\")", msg));
  EXPECT_FALSE(*Eval("sluice.expr.test.SampleLogMessage.tags.exists(e, e == \"404\")", msg));
  EXPECT_TRUE(*Eval("sluice.expr.test.SampleLogMessage.tags.exists(e, !(int(e) in [400, 500, 600]))", msg));
  EXPECT_FALSE(*Eval("sluice.expr.test.SampleLogMessage.tags.all(e, int(e) < 500)", msg));
  EXPECT_TRUE(*Eval("sluice.expr.test.SampleLogMessage.tags.exists_one(e, int(e) > 500)", msg));
  EXPECT_TRUE(*Eval("size(sluice.expr.test.SampleLogMessage.tags) == 2 && "
                    "sluice.expr.test.SampleLogMessage.tags.size() == 2",
                    msg));
  EXPECT_TRUE(*Eval("int(sluice.expr.test.SampleLogMessage.driver_id) == 402 || false", msg));
  EXPECT_TRUE(*Eval("true", msg));
  EXPECT_FALSE(*Eval("false", msg));
  EXPECT_TRUE(*Eval("sluice.expr.test.SampleLogMessage.trip_count > 5 ? true : false", msg));
  // The variable's name inside a string is text, not the variable.
  EXPECT_FALSE(*Eval("sluice.expr.test.SampleLogMessage.driver_id == 'sluice.expr.test.SampleLogMessage'", msg));
}

TEST_F(CelTest, OutsideTheSubsetIsRefusedNamingTheConstruct) {
  for (const char* expr : {
           "sluice.expr.test.SampleLogMessage.driver_id.startsWith('4')",
           "lower(sluice.expr.test.SampleLogMessage.driver_id) == 'x'",
           "sluice.expr.test.SampleLogMessage.driver_id =~ '4.*'",
           "sluice.expr.test.SampleLogMessage.driver_id matches '4'",
           "sluice.expr.test.SampleLogMessage?.driver_id == '4'",
           "sluice.expr.test.SampleLogMessage.driver_id ?? 'x'",
           "has(sluice.expr.test.SampleLogMessage.driver_id)",
           "sluice.expr.test.SampleLogMessage.tags.map(e, e)",
       }) {
    auto e = CelExpression::Compile(expr, kVar, type_);
    EXPECT_FALSE(e.ok()) << expr;
    EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument) << expr;
  }
  EXPECT_THAT(CelExpression::Compile("x.success == false", kVar, type_).status().message(),
              HasSubstr("unknown variable 'x'"));
  EXPECT_THAT(CelExpression::Compile("sluice.expr.test.SampleLogMessage.nope", kVar, type_)
                  .status()
                  .message(),
              HasSubstr("nope"));
  EXPECT_THAT(CelExpression::Compile("sluice.expr.test.SampleLogMessage.driver_id.startsWith('4')",
                                     kVar, type_)
                  .status()
                  .message(),
              HasSubstr("method 'startsWith' is not in the supported CEL subset"));
}

TEST_F(CelTest, EvaluationErrorsAndNonBoolResults) {
  const char* msg = R"pb(tags: "abc")pb";
  EXPECT_THAT(Eval("sluice.expr.test.SampleLogMessage.tags.exists(e, int(e) > 1)", msg).status().message(),
              HasSubstr("int() cannot convert"));
  EXPECT_FALSE(Eval("sluice.expr.test.SampleLogMessage.trip_count", msg).ok());
}

}  // namespace
}  // namespace sluice::expr
