// The reproductions of the 2026-11 security review (shared/reviews/
// security-2026-11.md) for the notification module, replayed end to end
// through the gateway against a real sluice-server: each must now be
// refused, or survived by a server process that is still running.
//   C3  file receiver writing anywhere
//   C4  file:// / gopher:// destinations and response bodies echoed in last_error
//   C5/M9  secrets re-pointed to new destinations; the http url in clear
//   H1  values that made the delivery worker throw (std::terminate)
//   H2  template bodies whose parse memory grows with the square of the nesting
//   M5  a late outcome of an expired lease overwriting a later one
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"
#include "integration/suite_stack.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The file receivers' directory of the suite's server.
std::string FilesDir() { return TempPath("security-files"); }

class NotificationSecurityTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() {
    mkdir(FilesDir().c_str(), 0755);
    StartSuiteStack(absl::StrCat("notification:\n  workers: 2\n  poll_interval_ms: 100\n",
                                 "  retry_backoff_ms: 200\n  file_receiver_dir: ", FilesDir(), "\n"));
  }
  void SetUp() override {
    fake_ = FakeHttpServer::Start();
    ASSERT_NE(fake_, nullptr);
  }
  void TearDown() override { EXPECT_TRUE(stack_->server().Running()) << stack_->server().Output(); }
  // Runs SQL on the stack's database (to plant rows the API now refuses).
  void Sql(const std::string& sql) {
    auto psql = Process::Start({"/usr/bin/psql", stack_->database().dsn(), "-v", "ON_ERROR_STOP=1",
                                "-tAc", sql});
    ASSERT_TRUE(psql.ok());
    ASSERT_EQ((*psql)->Wait(absl::Seconds(10)), 0) << (*psql)->Output();
    sql_out_ = (*psql)->Output();
  }
  // The only message of a notification to the receivers selected by
  // `selector` (or, with `subscribed`, to subscriptions matching it as
  // labels), once settled.
  json SendTo(const json& selector, const json& data = {{"k", "v"}}, bool subscribed = false) {
    uint64_t n = api_.Notify(subscribed ? json{{"labels", selector}, {"data", data}}
                                        : json{{"receivers", json::array({selector})}, {"data", data}});
    json msgs = api_.WaitSettled(n);
    EXPECT_EQ(msgs.size(), 1u) << msgs.dump();
    return msgs.empty() ? json::object() : msgs[0];
  }
  NotificationApi api_{stack_};
  std::unique_ptr<FakeHttpServer> fake_;
  std::string sql_out_;
};

// ---- C3 ----

TEST_F(NotificationSecurityTest, C3FileReceiverWritesOnlyUnderItsDirectory) {
  // The review's reproduction, and other ways out of the directory.
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "x"}, {"type", "file"},
                         {"configurations", {{"url", "/etc/profile.d/zz.sh"}}}}),
              3, "configurations.url");
  for (const char* url : {"../zz.sh", "a/../../zz.sh", "file:///etc/profile.d/zz.sh"}) {
    ExpectError(api_.Call("POST", "/receivers",
                          {{"name", "x"}, {"type", "file"}, {"configurations", {{"url", url}}}}),
                3, "configurations.url");
  }
  // A symbolic link planted inside the directory does not lead out of it.
  std::string outside = TempPath("security-outside");
  mkdir(outside.c_str(), 0755);
  ASSERT_EQ(symlink(outside.c_str(), (FilesDir() + "/escape").c_str()), 0);
  uint64_t linked = api_.CreateReceiver({{"name", "linked"}, {"type", "file"},
                                         {"labels", {{"c3", "link"}}},
                                         {"configurations", {{"url", "escape/zz.sh"}}}});
  json m = SendTo({{"c3", "link"}});
  EXPECT_EQ(m["status"], "failed") << m.dump();
  EXPECT_NE(m["last_error"].get<std::string>().find("symbolic link"), std::string::npos) << m.dump();
  EXPECT_NE(access((outside + "/zz.sh").c_str(), F_OK), 0);
  (void)linked;

  // Inside the directory it works, relative or absolute.
  api_.CreateReceiver({{"name", "lines"}, {"type", "file"}, {"labels", {{"c3", "ok"}}},
                       {"configurations", {{"url", "alerts.jsonl"}}}});
  api_.CreateReceiver({{"name", "lines-abs"}, {"type", "file"}, {"labels", {{"c3", "abs"}}},
                       {"configurations", {{"url", FilesDir() + "/abs.jsonl"}}}});
  EXPECT_EQ(SendTo({{"c3", "ok"}}, {{"k", "$(id>/tmp/pwn)"}})["status"], "published");
  EXPECT_EQ(SendTo({{"c3", "abs"}})["status"], "published");
  EXPECT_EQ(ReadFile(FilesDir() + "/alerts.jsonl"),
            "{\"k\":\"$(id>/tmp/pwn)\",\"notification_type\":\"event\"}\n");
  EXPECT_EQ(ReadFile(FilesDir() + "/abs.jsonl"), "{\"k\":\"v\",\"notification_type\":\"event\"}\n");
}

TEST(NotificationSecurityStandaloneTest, C3FileReceiversAreDisabledWithoutADirectory) {
  auto stack = Stack::Start();  // no notification.file_receiver_dir
  ASSERT_TRUE(stack.ok()) << stack.status();
  NotificationApi api(stack->get());
  ExpectError(api.Call("POST", "/receivers",
                       {{"name", "x"}, {"type", "file"},
                        {"configurations", {{"url", "/etc/profile.d/zz.sh"}}}}),
              9, "notification.file_receiver_dir");
  ExpectError(api.Call("POST", "/receivers",
                       {{"name", "x"}, {"type", "file"}, {"configurations", {{"url", "x.jsonl"}}}}),
              9, "notification.file_receiver_dir");
}

// ---- C4 ----

TEST_F(NotificationSecurityTest, C4DestinationsMustBeHttpUrls) {
  // The review's reproduction: Slack reading the server's environment.
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "x"}, {"type", "slack"},
                         {"configurations", {{"token", "x"}, {"channel_name", "y"},
                                             {"api_url", "file:///proc/self/environ#"}}}}),
              3, "configurations.api_url");
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "x"}, {"type", "pagerduty"},
                         {"configurations", {{"routing_key", "k"},
                                             {"api_url", "file:///etc/passwd?"}}}}),
              3, "configurations.api_url");
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "x"}, {"type", "http"},
                         {"configurations", {{"url", "dict://127.0.0.1:11211/stat"}}}}),
              3, "configurations.url");
  // The second reproduction: an override on any http receiver.
  uint64_t rid = api_.CreateReceiver({{"name", "c4-http"}, {"type", "http"},
                                      {"configurations", {{"url", fake_->Url("/c4")}}}});
  ExpectError(api_.Call("POST", "/subscriptions",
                        {{"urn", "c4-gopher"},
                         {"receivers", {{{"id", rid},
                                         {"configuration", {{"url", "gopher://redis:6379/_FLUSHALL"}}}}}},
                         {"match", {{"c4", "gopher"}}}}),
              3, "receivers[0].configuration.url");
  // Updates are validated too.
  ExpectError(api_.Call("PUT", absl::StrCat("/receivers/", rid),
                        {{"name", "c4-http"}, {"configurations", {{"url", "gopher://redis:6379/_x"}}}}),
              3, "configurations.url");
}

TEST_F(NotificationSecurityTest, C4ResponseBodiesAndUrlSecretsStayOutOfLastError) {
  fake_->Script("/hook/T000/B000/s3cr3t", {{400, "SLUICE_DB_DSN=host=db password=hunter2"}});
  api_.CreateReceiver({{"name", "c4-echo"}, {"type", "http"}, {"labels", {{"c4", "echo"}}},
                       {"configurations", {{"url", fake_->Url("/hook/T000/B000/s3cr3t")}}}});
  json m = SendTo({{"c4", "echo"}});
  EXPECT_EQ(m["status"], "failed");
  EXPECT_EQ(m["last_error"], absl::StrCat("POST http://127.0.0.1:", fake_->port(), ": HTTP 400"));

  fake_->SetDefault("/c4slack/chat.postMessage",
                    {200, R"({"ok":false,"error":"SLUICE_DB_DSN=host=db password=hunter2"})"});
  uint64_t slack = api_.CreateReceiver(
      {{"name", "c4-slack"}, {"type", "slack"}, {"labels", {{"c4", "slack"}}},
       {"configurations", {{"token", "xoxb-c4"}, {"channel_name", "#c"},
                           {"api_url", fake_->Url("/c4slack")}}}});
  m = SendTo({{"c4", "slack"}});
  EXPECT_EQ(m["last_error"], "slack chat.postMessage: unrecognised_error");

  // A file:// api_url stored before validation existed is refused at send
  // time; nothing of the environment reaches last_error.
  Sql(absl::StrCat("UPDATE receivers SET configurations = configurations || "
                   "'{\"api_url\": \"file:///proc/self/environ#\"}' WHERE id = ", slack));
  m = SendTo({{"c4", "slack"}});
  EXPECT_EQ(m["status"], "failed");
  std::string error = m["last_error"];
  EXPECT_EQ(error.rfind("invalid receiver configuration: configurations.api_url", 0), 0u) << error;
  EXPECT_EQ(error.find("SLUICE_"), std::string::npos) << error;
}

// ---- C5 / M9 ----

TEST_F(NotificationSecurityTest, M9HttpUrlIsASecret) {
  std::string url = fake_->Url("/services/T000/B000/XXXXsecret");
  uint64_t rid = api_.CreateReceiver({{"name", "m9-hook"}, {"type", "http"},
                                      {"labels", {{"m9", "hook"}}},
                                      {"configurations", {{"url", url}}}});
  EXPECT_EQ(api_.Call("GET", absl::StrCat("/receivers/", rid)).Json()["receiver"]["configurations"]["url"],
            "*****");
  EXPECT_EQ(api_.Call("GET", "/receivers").body.find("XXXXsecret"), std::string::npos);
  Sql(absl::StrCat("SELECT configurations->>'url' FROM receivers WHERE id = ", rid));
  EXPECT_EQ(sql_out_.rfind("v2:", 0), 0u) << sql_out_;
  // "*****" keeps it; delivery still reaches it.
  ASSERT_EQ(api_.Call("PUT", absl::StrCat("/receivers/", rid),
                      {{"name", "m9-hook"}, {"labels", {{"m9", "hook"}}},
                       {"configurations", {{"url", "*****"}}}})
                .status,
            200);
  EXPECT_EQ(SendTo({{"m9", "hook"}})["status"], "published");
  EXPECT_EQ(fake_->Requests("/services/T000/B000/XXXXsecret").size(), 1u);
}

TEST_F(NotificationSecurityTest, C5StoredSecretsNeverGoToANewDestination) {
  uint64_t slack = api_.CreateReceiver(
      {{"name", "c5-slack"}, {"type", "slack"},
       {"configurations", {{"token", "xoxb-stored"}, {"channel_name", "#c"},
                           {"api_url", fake_->Url("/good")}}}});
  // api_url → evil with the masked (or omitted) token: refused.
  ExpectError(api_.Call("PUT", absl::StrCat("/receivers/", slack),
                        {{"name", "c5-slack"},
                         {"configurations", {{"token", "*****"}, {"channel_name", "#c"},
                                             {"api_url", fake_->Url("/evil")}}}}),
              3, "configurations.token: must be supplied again");
  ExpectError(api_.Call("PUT", absl::StrCat("/receivers/", slack),
                        {{"name", "c5-slack"},
                         {"configurations", {{"channel_name", "#c"}, {"api_url", fake_->Url("/evil")}}}}),
              3, "configurations.token");
  // A subscription override cannot re-point it either.
  ExpectError(api_.Call("POST", "/subscriptions",
                        {{"urn", "c5-evil"},
                         {"receivers", {{{"id", slack},
                                         {"configuration", {{"api_url", fake_->Url("/evil")}}}}}},
                         {"match", {{"c5", "evil"}}}}),
              3, "receivers[0].configuration.api_url");
  // Same for PagerDuty's key.
  uint64_t pd = api_.CreateReceiver({{"name", "c5-pd"}, {"type", "pagerduty"},
                                     {"configurations", {{"routing_key", "R0UT1NG"},
                                                         {"api_url", fake_->Url("/pd")}}}});
  ExpectError(api_.Call("PUT", absl::StrCat("/receivers/", pd),
                        {{"name", "c5-pd"},
                         {"configurations", {{"routing_key", "*****"}, {"api_url", "http://evil"}}}}),
              3, "configurations.routing_key: must be supplied again");
  // With the token supplied again, the move is allowed.
  auto moved = api_.Call("PUT", absl::StrCat("/receivers/", slack),
                         {{"name", "c5-slack"},
                          {"configurations", {{"token", "xoxb-new"}, {"channel_name", "#c"},
                                              {"api_url", fake_->Url("/new")}}}});
  EXPECT_EQ(moved.status, 200) << moved.body;
  EXPECT_TRUE(fake_->Requests("/evil").empty());
}

// ---- H1 ----

TEST_F(NotificationSecurityTest, H1OddOverridesAndSlackRepliesDoNotCrashTheServer) {
  uint64_t rid = api_.CreateReceiver({{"name", "h1-http"}, {"type", "http"},
                                      {"configurations", {{"url", fake_->Url("/h1")}}}});
  json sub = {{"urn", "h1-sub"}, {"receivers", {{{"id", rid}}}}, {"match", {{"h1", "x"}}}};
  // The API refuses the review's overrides now…
  for (json bad : {json{{"url", 1}}, json{{"url", nullptr}}}) {
    sub["receivers"][0]["configuration"] = bad;
    ExpectError(api_.Call("POST", "/subscriptions", sub), 3, "receivers[0].configuration.url");
  }
  // …and rows planted in the database fail their message, not the process.
  sub["receivers"][0].erase("configuration");
  uint64_t sid = api_.CreateSubscription(sub);
  for (const char* planted : {R"({"url": 1})", R"({"url": null})"}) {
    Sql(absl::StrCat("UPDATE subscription_receivers SET configuration = '", planted,
                     "' WHERE subscription_id = ", sid));
    json m = SendTo({{"h1", "x"}}, {{"k", "v"}}, /*subscribed=*/true);
    EXPECT_EQ(m["status"], "failed") << m.dump();
    ASSERT_TRUE(stack_->server().Running()) << stack_->server().Output();
  }
  Sql(absl::StrCat("UPDATE subscription_receivers SET configuration = 'null' WHERE subscription_id = ",
                   sid));
  EXPECT_EQ(SendTo({{"h1", "x"}}, {{"k", "v"}}, /*subscribed=*/true)["status"], "published");

  // Slack replies without a user, or with a non-boolean "ok".
  fake_->SetDefault("/h1slack/users.lookupByEmail", {200, R"({"ok":true})"});
  fake_->SetDefault("/h1slack/chat.postMessage", {200, R"({"ok":"x"})"});
  api_.CreateReceiver({{"name", "h1-dm"}, {"type", "slack"}, {"labels", {{"h1", "dm"}}},
                       {"configurations", {{"token", "xoxb-h1"}, {"channel_name", "a@b.c"},
                                           {"channel_type", "user"},
                                           {"api_url", fake_->Url("/h1slack")}}}});
  api_.CreateReceiver({{"name", "h1-chan"}, {"type", "slack"}, {"labels", {{"h1", "chan"}}},
                       {"configurations", {{"token", "xoxb-h1"}, {"channel_name", "#c"},
                                           {"api_url", fake_->Url("/h1slack")}}}});
  json dm = SendTo({{"h1", "dm"}});
  EXPECT_EQ(dm["status"], "failed");
  EXPECT_EQ(dm["last_error"], "slack users.lookupByEmail: reply has no user.id");
  json chan = SendTo({{"h1", "chan"}});
  EXPECT_EQ(chan["status"], "failed");
  EXPECT_NE(chan["last_error"].get<std::string>().find("no boolean \"ok\""), std::string::npos);
  ASSERT_TRUE(stack_->server().Running()) << stack_->server().Output();
}

// ---- H2 ----

TEST_F(NotificationSecurityTest, H2TemplateBombsAreRefusedBeforeParsing) {
  // The review's body: 12000 nested sections (144 KB): about 860 MB to parse.
  ExpectError(api_.Call("PUT", "/templates",
                        {{"name", "t"}, {"body", Repeat("{{#a}}", 12000) + Repeat("{{/a}}", 12000)}}),
              3, "the limit is 65536");
  // Under 64 KiB, 5000 levels; and hidden behind set-delimiter tags.
  ExpectError(api_.Call("PUT", "/templates",
                        {{"name", "t"}, {"body", Repeat("{{#a}}", 5000) + Repeat("{{/a}}", 5000)}}),
              3, "nest deeper than 100");
  ExpectError(api_.Call("PUT", "/templates",
                        {{"name", "t"},
                         {"body", "{{=<% %>=}}" + Repeat("<%#a%>", 5000) + Repeat("<%/a%>", 5000)}}),
              3, "nest deeper than 100");
  long peak = PeakRssKiB(stack_->server().pid());
  EXPECT_GT(peak, 0);
  EXPECT_LT(peak, 300 * 1024) << "server peak RSS " << peak << " KiB";

  // Within the limits, sections over a list multiply at render time: bounded.
  std::string bomb = Repeat("{{#l}}", 40) + "x" + Repeat("{{/l}}", 40);
  ASSERT_EQ(api_.Call("PUT", "/templates", {{"name", "h2-bomb"}, {"body", bomb}}).status, 200);
  json two = json::array({json::object(), json::object()});
  ExpectError(api_.Call("POST", "/templates/h2-bomb/render", {{"variables", {{"l", two}}}}), 3,
              "would render more than");
  api_.CreateReceiver({{"name", "h2-http"}, {"type", "http"}, {"labels", {{"h2", "x"}}},
                       {"configurations", {{"url", fake_->Url("/h2")}}}});
  uint64_t n = api_.Notify(
      {{"receivers", {{{"h2", "x"}}}}, {"template", "h2-bomb"}, {"data", {{"l", two}}}});
  json m = api_.WaitSettled(n)[0];
  EXPECT_EQ(m["status"], "failed");
  EXPECT_NE(m["last_error"].get<std::string>().find("would render more than"), std::string::npos);
  EXPECT_TRUE(fake_->Requests("/h2").empty());
  ASSERT_TRUE(stack_->server().Running()) << stack_->server().Output();
}

// ---- M5 ----

// An HTTP endpoint that answers its first request after `delay` with 500 and
// every later one at once with 200, one thread per connection (so a second
// delivery can finish while the first is still waiting).
class SlowFirstServer {
 public:
  explicit SlowFirstServer(absl::Duration delay) : delay_(delay) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(fd_, 16);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] {
      while (true) {
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        int index = requests_++;
        absl::MutexLock lock(&mu_);
        handlers_.emplace_back([this, c, index] { Handle(c, index); });
      }
    });
  }
  ~SlowFirstServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    acceptor_.join();
    absl::MutexLock lock(&mu_);
    for (auto& t : handlers_) t.join();
  }
  std::string Url() const { return absl::StrCat("http://127.0.0.1:", port_, "/slow"); }
  int requests() const { return requests_; }

 private:
  void Handle(int c, int index) {
    std::string req;
    char buf[4096];
    size_t need = std::string::npos;
    while (need == std::string::npos || req.size() < need) {
      ssize_t n = read(c, buf, sizeof(buf));
      if (n <= 0) break;
      req.append(buf, n);
      size_t end = req.find("\r\n\r\n");
      if (need == std::string::npos && end != std::string::npos) {
        size_t cl = req.find("Content-Length: ");
        need = end + 4 + (cl == std::string::npos ? 0 : std::atoi(req.c_str() + cl + 16));
      }
    }
    if (index == 0) absl::SleepFor(delay_);
    std::string out = index == 0 ? "HTTP/1.1 500 X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                 : "HTTP/1.1 200 X\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
    (void)!write(c, out.data(), out.size());
    close(c);
  }
  absl::Duration delay_;
  int fd_ = -1, port_ = 0;
  std::atomic<int> requests_{0};
  std::thread acceptor_;
  absl::Mutex mu_;
  std::vector<std::thread> handlers_;
};

// Review M5: a send outlasting lease_seconds is claimed and sent again
// (at-least-once). The first claim's late retry must not flip the second
// claim's `published` back to `enqueued` and cause a third send.
TEST(NotificationSecurityStandaloneTest, M5LateOutcomeOfAnExpiredLeaseIsDropped) {
  Stack::Options opts;
  opts.config_yaml =
      "notification:\n  workers: 2\n  poll_interval_ms: 100\n  retry_backoff_ms: 200\n"
      "  lease_seconds: 1\n";
  auto stack = Stack::Start(opts);
  ASSERT_TRUE(stack.ok()) << stack.status();
  NotificationApi api(stack->get());
  SlowFirstServer slow(absl::Seconds(3));
  api.CreateReceiver({{"name", "m5-slow"}, {"type", "http"}, {"labels", {{"m5", "slow"}}},
                      {"configurations", {{"url", slow.Url()}}}});
  uint64_t n = api.Notify({{"receivers", {{{"m5", "slow"}}}}, {"data", {{"k", "v"}}}});
  json m = api.WaitSettled(n);
  ASSERT_EQ(m.size(), 1u);
  // Past the first send's late 500 (at 3 s) and a retry's backoff.
  absl::SleepFor(absl::Seconds(5));
  m = api.Messages(n)[0];
  EXPECT_EQ(m["status"], "published") << m.dump();
  EXPECT_EQ(m["try_count"], 2) << m.dump();
  EXPECT_EQ(slow.requests(), 2);
  EXPECT_NE((*stack)->server().Output().find("lease was lost"), std::string::npos);
  EXPECT_TRUE((*stack)->server().Running());
}

}  // namespace
}  // namespace sluice::integration
