// sluicectl against a real stack: receiver/subscription/template commands
// from YAML files and `notification send -f` (root key `payload`).
#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/strip.h"
#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

class NotificationCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Stack::Options opts;
    opts.config_yaml = "notification:\n  workers: 1\n  poll_interval_ms: 100\n";
    auto stack = Stack::Start(opts);
    ASSERT_TRUE(stack.ok()) << stack.status();
    stack_ = std::move(*stack);
    fake_ = FakeHttpServer::Start();
  }
  // Runs sluicectl with `args`; returns {exit code, output}.
  std::pair<int, std::string> Ctl(std::vector<std::string> args) {
    std::vector<std::string> argv = {Runfile("cli/sluicectl"), "--host", stack_->grpc_target(),
                                     "--email", "cli@example.com"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto p = Process::Start(argv, stack_->ClientEnv(), TempPath(absl::StrCat("ctl-", ++runs_, ".log")));
    if (!p.ok()) return {-1, ""};
    int code = (*p)->Wait(absl::Seconds(30));
    return {code, (*p)->Output()};
  }
  std::string File(const std::string& name, const std::string& text) {
    std::string path = TempPath(name);
    std::ofstream(path) << text;
    return path;
  }
  std::unique_ptr<Stack> stack_;
  std::unique_ptr<FakeHttpServer> fake_;
  int runs_ = 0;
};

TEST_F(NotificationCliTest, CrudAndFileSend) {
  auto [rc, out] = Ctl({"--json", "receiver", "create", "-f",
                        File("recv.yaml", "name: cli-hook\ntype: http\nlabels:\n  team: cli\n"
                                          "configurations:\n  url: " + fake_->Url("/cli") + "\n")});
  ASSERT_EQ(rc, 0) << out;
  uint64_t rid = U64(json::parse(out)["id"]);
  ASSERT_GT(rid, 0u);

  std::tie(rc, out) = Ctl({"--json", "receiver", "list", "--label", "team=cli"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(json::parse(out)["receivers"].size(), 1u);
  std::tie(rc, out) = Ctl({"--json", "receiver", "get", std::to_string(rid)});
  EXPECT_EQ(json::parse(out)["receiver"]["name"], "cli-hook") << out;

  std::tie(rc, out) = Ctl({"--json", "subscription", "create", "-f",
                           File("sub.yaml", "urn: cli-sub\nreceivers:\n  - id: " +
                                                std::to_string(rid) + "\nmatch:\n  app: cli\n")});
  ASSERT_EQ(rc, 0) << out;
  uint64_t sid = U64(json::parse(out)["id"]);
  std::tie(rc, out) = Ctl({"--json", "subscription", "list", "--match", "app=cli"});
  EXPECT_EQ(json::parse(out)["subscriptions"].size(), 1u) << out;

  std::tie(rc, out) = Ctl({"template", "create", "-f",
                           File("tmpl.yaml", "name: cli-tmpl\ntags: [cli]\n"
                                             "body: '{\"msg\": \"{{greeting}}, {{who}}\"}'\n"
                                             "variables:\n  - name: greeting\n    default: Hello\n")});
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = Ctl({"--json", "template", "list", "--tag", "cli"});
  EXPECT_EQ(json::parse(out)["templates"][0]["name"], "cli-tmpl") << out;

  // The file send: selectors and labels, root key payload; prints the id.
  std::string send = File("send.yaml",
                          "payload:\n"
                          "  template: cli-tmpl\n"
                          "  data:\n    who: operator\n"
                          "  receivers:\n    - team: cli\n"
                          "  labels:\n    app: cli\n");
  std::tie(rc, out) = Ctl({"notification", "send", "-f", send});
  ASSERT_EQ(rc, 0) << out;
  uint64_t nid = U64(json(std::string(absl::StripAsciiWhitespace(out))));
  ASSERT_GT(nid, 0u) << out;
  ASSERT_TRUE(fake_->WaitForRequests("/cli", 1, absl::Seconds(20)));
  EXPECT_EQ(fake_->Requests("/cli")[0].Json(), json({{"msg", "Hello, operator"}}));
  NotificationApi api(stack_.get());
  EXPECT_EQ(api.WaitSettled(nid).size(), 1u);  // selector and subscription → one message

  std::tie(rc, out) = Ctl({"--json", "notification", "messages", std::to_string(nid)});
  EXPECT_EQ(json::parse(out)["messages"][0]["status"], "published") << out;

  // Errors print the gRPC code and exit 1.
  std::tie(rc, out) = Ctl({"notification", "send", "-f", File("bad.yaml", "data: {}\n")});
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("root key \"payload\""), std::string::npos) << out;
  std::tie(rc, out) = Ctl({"receiver", "delete", std::to_string(rid)});
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("error: 9:"), std::string::npos) << out;

  std::tie(rc, out) = Ctl({"subscription", "delete", std::to_string(sid)});
  EXPECT_EQ(rc, 0) << out;
  std::tie(rc, out) = Ctl({"receiver", "delete", std::to_string(rid)});
  EXPECT_EQ(rc, 0) << out;
  std::tie(rc, out) = Ctl({"template", "delete", "cli-tmpl"});
  EXPECT_EQ(rc, 0) << out;
}

}  // namespace
}  // namespace sluice::integration
