#include "server/slack/approval_buttons.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"

namespace sluice::slack {
namespace {

using nlohmann::json;

json Data(const std::string& event = "appeal.created") {
  return {{"event", event}, {"appeal_id", "a-42"}, {"step", "owner"}, {"resource_name", "wiki"}};
}

json Actions(const std::string& value) {
  return json::parse(R"({"type":"actions","block_id":"sluice_approval","elements":[
    {"type":"button","action_id":"sluice_approve","style":"primary",
     "text":{"type":"plain_text","text":"Approve"},"value":")" + value + R"("},
    {"type":"button","action_id":"sluice_reject","style":"danger",
     "text":{"type":"plain_text","text":"Reject"},"value":")" + value + R"("}]})");
}

constexpr char kValue[] = R"({\"appeal_id\":\"a-42\",\"approval_name\":\"owner\",\"receiver_id\":7})";

TEST(ApprovalButtonsTest, TextPayloadGetsASectionThenTheButtons) {
  json payload = {{"text", "*bob* asks for viewer on wiki"}};
  auto added = AddApprovalButtons(Data(), 7, &payload);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_TRUE(*added);
  json want_section = {{"type", "section"},
                       {"text", {{"type", "mrkdwn"}, {"text", "*bob* asks for viewer on wiki"}}}};
  EXPECT_EQ(payload, json({{"text", "*bob* asks for viewer on wiki"},
                           {"blocks", {want_section, Actions(kValue)}}}));
  // The value is compact JSON the interaction handler reads back.
  EXPECT_EQ(json::parse(payload["blocks"][1]["elements"][0]["value"].get<std::string>()),
            json({{"appeal_id", "a-42"}, {"approval_name", "owner"}, {"receiver_id", 7}}));
}

TEST(ApprovalButtonsTest, EveryApproverEventAndIntegerAppealIds) {
  for (const char* event : {"appeal.created", "appeal.step_approved", "appeal.pending_reminder"}) {
    json payload = {{"text", "t"}};
    EXPECT_TRUE(*AddApprovalButtons(Data(event), 7, &payload)) << event;
    EXPECT_EQ(payload["blocks"].back(), Actions(kValue)) << event;
  }
  json data = Data();
  data["appeal_id"] = 42;
  json payload = {{"text", "t"}};
  ASSERT_TRUE(*AddApprovalButtons(data, 18446744073709551615u, &payload));
  EXPECT_EQ(payload["blocks"][1]["elements"][1]["value"],
            R"({"appeal_id":"42","approval_name":"owner","receiver_id":18446744073709551615})");
  // receiver_id is an unsigned number (what the interaction handler accepts).
  EXPECT_TRUE(json::parse(payload["blocks"][1]["elements"][1]["value"].get<std::string>())["receiver_id"]
                  .is_number_unsigned());
}

TEST(ApprovalButtonsTest, ExistingBlocksAreKeptAndTheButtonsAppended) {
  json header = {{"type", "header"}, {"text", {{"type", "plain_text"}, {"text", "Appeal"}}}};
  json payload = {{"text", "fallback"}, {"blocks", {header}}, {"channel", "C1"}};
  ASSERT_TRUE(*AddApprovalButtons(Data(), 7, &payload));
  // No section from "text": the template's blocks are what Slack shows.
  EXPECT_EQ(payload, json({{"text", "fallback"}, {"blocks", {header, Actions(kValue)}}, {"channel", "C1"}}));
}

TEST(ApprovalButtonsTest, StringPayloadsAndPayloadsWithoutText) {
  json s = "plain words";
  ASSERT_TRUE(*AddApprovalButtons(Data(), 7, &s));
  EXPECT_EQ(s["text"], "plain words");
  ASSERT_EQ(s["blocks"].size(), 2u);
  EXPECT_EQ(s["blocks"][0]["text"]["text"], "plain words");

  json attachments = {{"attachments", json::array({{{"text", "a"}}})}};
  ASSERT_TRUE(*AddApprovalButtons(Data(), 7, &attachments));
  EXPECT_EQ(attachments["blocks"], json::array({Actions(kValue)}));
  EXPECT_EQ(attachments["attachments"], json::array({{{"text", "a"}}}));
}

TEST(ApprovalButtonsTest, OtherNotificationsAreLeftUnchanged) {
  const json original = {{"text", "t"}};
  std::vector<json> cases = {
      Data("appeal.approved"), Data("appeal.rejected"), Data("grant.expiring"),
      json::object(), json::array(), json("appeal.created"), json({{"event", 1}})};
  for (const char* field : {"appeal_id", "step"}) {
    json missing = Data();
    missing.erase(field);
    cases.push_back(missing);
    json empty = Data();
    empty[field] = "";
    cases.push_back(empty);
    json wrong = Data();
    wrong[field] = json::array({"x"});
    cases.push_back(wrong);
  }
  json fractional = Data();
  fractional["appeal_id"] = 4.5;
  cases.push_back(fractional);
  for (const json& data : cases) {
    json payload = original;
    auto added = AddApprovalButtons(data, 7, &payload);
    ASSERT_TRUE(added.ok()) << data.dump() << " " << added.status();
    EXPECT_FALSE(*added) << data.dump();
    EXPECT_EQ(payload, original) << data.dump();
  }
}

// A limit that cannot be met leaves the payload as it was and says which.
TEST(ApprovalButtonsTest, SlackLimitsLeaveThePayloadUnchangedWithTheReason) {
  auto expect_refused = [](const json& data, json payload, absl::StatusCode code, const std::string& why) {
    const json before = payload;
    auto added = AddApprovalButtons(data, 7, &payload);
    ASSERT_FALSE(added.ok()) << why;
    EXPECT_EQ(added.status().code(), code) << added.status();
    EXPECT_TRUE(absl::StrContains(added.status().message(), why)) << added.status();
    EXPECT_EQ(payload, before);
  };
  // Section text: 3000 characters fit (counted as characters: "é" is two bytes).
  std::string text(2999, 'x');
  json fits = {{"text", text + "\xC3\xA9"}};
  EXPECT_TRUE(*AddApprovalButtons(Data(), 7, &fits));
  expect_refused(Data(), {{"text", text + "xx"}}, absl::StatusCode::kInvalidArgument,
                 "3001 characters exceeds a section's 3000");
  // 49 blocks leave room for the actions block, 50 do not.
  json blocks = json::array();
  for (int i = 0; i < 49; ++i) blocks.push_back({{"type", "divider"}});
  json room = {{"blocks", blocks}};
  EXPECT_TRUE(*AddApprovalButtons(Data(), 7, &room));
  EXPECT_EQ(room["blocks"].size(), 50u);
  blocks.push_back({{"type", "divider"}});
  expect_refused(Data(), {{"blocks", blocks}}, absl::StatusCode::kInvalidArgument,
                 "50 blocks, Slack allows 50");
  // Without blocks, the text's section counts too: nothing to refuse there
  // (1 + 1), but a value over 2000 characters is refused.
  json long_step = Data();
  long_step["step"] = std::string(2000, 's');
  expect_refused(long_step, {{"text", "t"}}, absl::StatusCode::kInvalidArgument,
                 "exceeds Slack's 2000");
  // Shapes it cannot extend.
  expect_refused(Data(), {{"blocks", "not an array"}}, absl::StatusCode::kInvalidArgument,
                 "\"blocks\" is not an array");
  expect_refused(Data(), json::array({1}), absl::StatusCode::kInvalidArgument, "not a JSON object");
  json twice = {{"text", "t"}};
  ASSERT_TRUE(*AddApprovalButtons(Data(), 7, &twice));
  expect_refused(Data(), twice, absl::StatusCode::kAlreadyExists, "sluice_approval");
}

}  // namespace
}  // namespace sluice::slack
