// End to end: a lark receiver (app credentials) and a lark_channel child
// (parent_id) deliver through the real server to integration/lark_fake (a
// stateful Lark open platform fake, proven against @larksuiteoapi/node-sdk in
// //integration/gcp_fake:lark_official_client_test), the server pointed at
// it by notification.lark_api_url.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "integration/lark_fake/lark_fake_process.h"
#include "integration/notification_helpers.h"
#include "integration/suite_stack.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

class NotificationLarkTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() {
    auto fake = LarkFake::Start();
    ASSERT_TRUE(fake.ok()) << fake.status();
    lark_ = fake->release();
    StartSuiteStack(absl::StrCat(
        "notification:\n  workers: 1\n  poll_interval_ms: 100\n  retry_backoff_ms: 200\n"
        "  lark_api_url: ",
        lark_->base_url(), "\n"));
  }
  static void TearDownTestSuite() {
    SuiteStackTest::TearDownTestSuite();
    delete lark_;
    lark_ = nullptr;
  }
  void SetUp() override {
    lark_->Reset();
    lark_->Setup({{"apps", {{{"app_id", "cli_1"}, {"app_secret", "sec"}}}},
                  {"chats", {{{"chat_id", "oc_1"}, {"name", "ops"}},
                             {{"chat_id", "oc_2"}, {"name", "other"}}}}});
  }
  static LarkFake* lark_;
  NotificationApi api_{stack_};
};

LarkFake* NotificationLarkTest::lark_ = nullptr;

TEST_F(NotificationLarkTest, ParentCredentialsChildChannelDelivered) {
  uint64_t parent = api_.CreateReceiver(
      {{"name", "lark-app"}, {"type", "lark"},
       {"configurations", {{"client_id", "cli_1"}, {"client_secret", "sec"}}}});
  ASSERT_NE(parent, 0u);
  json got = api_.Call("GET", absl::StrCat("/receivers/", parent)).Json()["receiver"];
  EXPECT_EQ(got["configurations"], json({{"client_id", "*****"}, {"client_secret", "*****"}}));
  // lark_channel needs a lark parent, and holds no credentials itself.
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "c0"}, {"type", "lark_channel"},
                         {"configurations", {{"channel_name", "ops"}}}}),
              3, "parent_id");
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "c1"}, {"type", "lark_channel"},
                         {"parent_id", std::to_string(parent)},
                         {"configurations", {{"channel_name", "ops"}, {"client_secret", "x"}}}}),
              3, "configurations.client_secret");
  uint64_t child = api_.CreateReceiver({{"name", "lark-ops"}, {"type", "lark_channel"},
                                        {"parent_id", std::to_string(parent)},
                                        {"labels", {{"team", "ops"}}},
                                        {"configurations", {{"channel_name", "ops"}}}});
  ASSERT_NE(child, 0u);

  lark_->Fail({{"path", "/im/v1/messages"}, {"status", 429}});  // retried
  uint64_t n = api_.Notify({{"receivers", {{{"team", "ops"}}}}, {"data", {{"text", "disk full"}}}});
  json msgs = api_.WaitSettled(n);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0]["status"], "published") << msgs.dump();
  json state = lark_->State();
  ASSERT_EQ(state["messages"].size(), 1u) << state.dump();
  EXPECT_EQ(state["messages"][0]["receive_id_type"], "chat_id");
  EXPECT_EQ(state["messages"][0]["receive_id"], "oc_1");
  EXPECT_EQ(state["messages"][0]["app_id"], "cli_1");
}

}  // namespace
}  // namespace sluice::integration
