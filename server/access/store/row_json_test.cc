// The fast row decoders give what protobuf's JSON parser gives, and decline
// (nullopt) what they do not read.
#include "server/access/store/row_json.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "server/access/core/json.h"

namespace sluice::access {
namespace {

using google::protobuf::util::MessageDifferencer;

TEST(RowJsonTest, AppealDataMatchesTheProtoJsonParser) {
  for (const char* text : {
           R"({})",
           R"({"permissions": ["read", "write"], "description": "on call"})",
           R"({"options": {"expiration_date": "2033-05-18T03:33:20Z", "duration": "24h"}})",
           R"({"options": {"expiration_date": "2033-05-18T03:33:20.123456Z"}})",
           R"({"options": {}, "details": {}, "labels": {}})",
           R"({"details": {"a": 1, "b": [true, null, "x", 2.5, {"c": {}}], "__q": {"n": -3}}})",
           R"({"labels": {"team": "core", "env": ""}})",
           R"({"creator": "c@x.com"})",
           R"({"creator": 42.5})",
           R"({"creator": null})",
           R"({"creator": ["a", 1, true, null]})",
           R"({"creator": {"email": "c@x.com", "manager": {"email": "m@x.com"}}})",
           R"({"permissions": [], "description": "", "creator": {}})",
       }) {
    pb::Appeal want;
    ASSERT_TRUE(JsonStringToProto(text, &want).ok()) << text;
    auto got = AppealFromDataJson(text);
    ASSERT_TRUE(got.has_value()) << text;
    EXPECT_TRUE(MessageDifferencer::Equals(*got, want))
        << text << "\ngot " << got->DebugString() << "\nwant " << want.DebugString();
  }
}

TEST(RowJsonTest, AppealDataDeclinesWhatItDoesNotRead) {
  for (const char* text : {
           R"([])", R"(not json)", R"({"id": "x"})", R"({"revoked_at": "2030-01-01T00:00:00Z"})",
           R"({"requirement_failures": []})", R"({"revision": 2})",
           R"({"labels": {"n": 1}})", R"({"permissions": "read"})", R"({"permissions": [1]})",
           R"({"details": [1]})", R"({"options": {"duration": 24}})",
           R"({"options": {"expiration_date": "tomorrow"}})", R"({"options": {"other": "x"}})",
           R"({"description": 1})",
       }) {
    EXPECT_FALSE(AppealFromDataJson(text).has_value()) << text;
  }
}

TEST(RowJsonTest, StructMatchesTheProtoJsonParser) {
  for (const char* text : {R"({})", R"({"a": {"b": [1, "2", null, false]}, "c": 1e3})",
                           R"({"dataset": "d", "project_id": "p", "n": 9007199254740993})"}) {
    google::protobuf::Struct want;
    ASSERT_TRUE(JsonStringToProto(text, &want).ok()) << text;
    auto got = StructFromJsonText(text);
    ASSERT_TRUE(got.has_value()) << text;
    EXPECT_TRUE(MessageDifferencer::Equals(*got, want)) << text;
  }
  EXPECT_FALSE(StructFromJsonText("[]").has_value());
  EXPECT_FALSE(StructFromJsonText("{").has_value());
}

}  // namespace
}  // namespace sluice::access
