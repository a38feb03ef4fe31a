// Receiver types against a fake HTTP client: request shapes and the
// retryable/permanent classification of failures.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <deque>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/registry.h"

namespace sluice::notification::receivers {
namespace {

using nlohmann::json;

class FakeHttp : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest& r) override {
    requests.push_back(r);
    if (replies.empty()) return HttpResult{200, "{}"};
    auto next = replies.front();
    replies.pop_front();
    return next;
  }
  std::vector<HttpRequest> requests;
  std::deque<absl::StatusOr<HttpResult>> replies;
};

std::string TmpDir() { return std::string(std::getenv("TEST_TMPDIR")); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The file receivers' directory, created once per test binary.
std::string FileDir() {
  std::string dir = TmpDir() + "/files";
  mkdir(dir.c_str(), 0755);
  char real[PATH_MAX];
  return realpath(dir.c_str(), real) ? std::string(real) : dir;
}

class ReceiversTest : public ::testing::Test {
 protected:
  ReceiverPlugin& P(const std::string& type) { return *plugins_.at(type); }
  FakeHttp http_;
  ReceiverPlugins plugins_ = NewReceiverPlugins(&http_, ReceiverOptions{FileDir()});
};

TEST_F(ReceiversTest, RegistryListsEveryType) {
  std::vector<std::string> names;
  for (const auto& [n, _] : plugins_) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"file", "http", "pagerduty", "slack"}));
  EXPECT_EQ(P("slack").SecretKeys(), std::vector<std::string>{"token"});
  EXPECT_EQ(P("pagerduty").SecretKeys(), (std::vector<std::string>{"service_key", "routing_key"}));
  // The http url carries webhook secrets (M9).
  EXPECT_EQ(P("http").SecretKeys(), std::vector<std::string>{"url"});
  EXPECT_EQ(P("http").DestinationKeys(), std::vector<std::string>{"url"});
  EXPECT_EQ(P("slack").DestinationKeys(), std::vector<std::string>{"api_url"});
  EXPECT_EQ(P("pagerduty").DestinationKeys(), std::vector<std::string>{"api_url"});
}

TEST_F(ReceiversTest, HttpPostsJsonAndClassifiesStatuses) {
  EXPECT_NE(P("http").ValidateConfig(json::object()).message().find("configurations.url"),
            std::string::npos);
  EXPECT_FALSE(P("http").ValidateConfig({{"url", "ftp://x"}}).ok());
  for (json bad : {json{{"url", "gopher://redis:6379/_FLUSHALL"}}, json{{"url", "http://"}},
                   json{{"url", "file:///etc/passwd"}}, json{{"url", 1}}, json{{"url", nullptr}},
                   json{{"url", "http://h/a b"}}}) {
    absl::Status st = P("http").ValidateConfig(bad);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << bad.dump();
    EXPECT_NE(st.message().find("configurations.url"), std::string::npos) << st;
  }
  // A config that bypassed validation fails without throwing (H1).
  EXPECT_FALSE(P("http").Send({{"url", 1}}, json::object()).ok());
  EXPECT_FALSE(P("http").Send({{"url", nullptr}}, json::object()).ok());
  EXPECT_FALSE(P("http").Send(json(), json::object()).ok());
  EXPECT_TRUE(http_.requests.empty());
  json cfg = {{"url", "http://h/x"}};
  ASSERT_TRUE(P("http").Send(cfg, {{"a", 1}}).ok());
  EXPECT_EQ(http_.requests[0].method, "POST");
  EXPECT_EQ(http_.requests[0].url, "http://h/x");
  EXPECT_EQ(http_.requests[0].body, R"({"a":1})");
  http_.replies = {HttpResult{503, ""}, HttpResult{429, ""}, HttpResult{404, "gone"},
                   absl::UnavailableError("connect refused"), absl::DeadlineExceededError("t")};
  EXPECT_TRUE(IsRetryable(P("http").Send(cfg, json::object())));
  EXPECT_TRUE(IsRetryable(P("http").Send(cfg, json::object())));
  absl::Status perm = P("http").Send(cfg, json::object());
  EXPECT_FALSE(IsRetryable(perm));
  EXPECT_EQ(perm.message(), "POST http://h: HTTP 404");  // no body, no path
  EXPECT_TRUE(IsRetryable(P("http").Send(cfg, json::object())));
  EXPECT_TRUE(IsRetryable(P("http").Send(cfg, json::object())));
}

TEST_F(ReceiversTest, FileAppendsJsonLinesUnderItsDirectory) {
  std::string dir = FileDir();
  ASSERT_TRUE(P("file").ValidateConfig({{"url", "out.jsonl"}}).ok());
  ASSERT_TRUE(P("file").ValidateConfig({{"url", dir + "/out.jsonl"}}).ok());
  ASSERT_TRUE(P("file").Send({{"url", "out.jsonl"}}, {{"n", 1}}).ok());
  ASSERT_TRUE(P("file").Send({{"url", dir + "/./out.jsonl"}}, {{"n", 2}}).ok());
  ASSERT_TRUE(P("file").Send({{"url", "file://" + dir + "/out.jsonl"}}, {{"n", 3}}).ok());
  EXPECT_EQ(ReadFile(dir + "/out.jsonl"), "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");
  // Subdirectories must exist; none are created.
  EXPECT_FALSE(P("file").Send({{"url", "nonexistent-dir/x"}}, json::object()).ok());
  ASSERT_EQ(mkdir((dir + "/sub").c_str(), 0755), 0);
  EXPECT_TRUE(P("file").Send({{"url", "sub/x.jsonl"}}, {{"n", 4}}).ok());
  EXPECT_EQ(ReadFile(dir + "/sub/x.jsonl"), "{\"n\":4}\n");
}

TEST_F(ReceiversTest, FileRefusesPathsOutsideItsDirectory) {
  std::string dir = FileDir();
  for (const char* url : {"/etc/profile.d/zz.sh", "../escape.jsonl", "a/../../escape.jsonl",
                          "sub/../x", "/", "", ".", "file:///tmp/x"}) {
    absl::Status st = P("file").ValidateConfig({{"url", url}});
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << url;
    EXPECT_NE(st.message().find("configurations.url"), std::string::npos) << st;
    EXPECT_FALSE(P("file").Send({{"url", url}}, json::object()).ok()) << url;
  }
  EXPECT_FALSE(P("file").ValidateConfig({{"url", dir}}).ok());  // the directory itself
  EXPECT_FALSE(P("file").ValidateConfig({{"url", dir + "-other/x"}}).ok());
  EXPECT_FALSE(P("file").ValidateConfig({{"url", 1}}).ok());
  EXPECT_FALSE(P("file").Send({{"url", nullptr}}, json::object()).ok());
}

TEST_F(ReceiversTest, FileRefusesSymlinkAndHardLinkEscapes) {
  std::string dir = FileDir();
  std::string outside = TmpDir() + "/outside";
  mkdir(outside.c_str(), 0755);
  std::ofstream(outside + "/target") << "original\n";
  // A symlinked directory and a symlinked file inside the directory.
  symlink(outside.c_str(), (dir + "/linkdir").c_str());
  symlink((outside + "/target").c_str(), (dir + "/linkfile").c_str());
  link((outside + "/target").c_str(), (dir + "/hardlink").c_str());
  for (const char* url : {"linkdir/target", "linkdir/new", "linkfile", "hardlink"}) {
    ASSERT_TRUE(P("file").ValidateConfig({{"url", url}}).ok()) << url;  // lexically fine
    absl::Status st = P("file").Send({{"url", url}}, {{"pwn", 1}});
    EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << url << ": " << st;
  }
  EXPECT_EQ(ReadFile(outside + "/target"), "original\n");
  EXPECT_NE(access((outside + "/new").c_str(), F_OK), 0);
}

TEST(FileReceiverDisabledTest, WithoutADirectoryTheTypeIsDisabled) {
  FakeHttp http;
  ReceiverPlugins plugins = NewReceiverPlugins(&http);
  absl::Status st = plugins.at("file")->ValidateConfig({{"url", "/tmp/x"}});
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("notification.file_receiver_dir"), std::string::npos) << st;
  EXPECT_EQ(plugins.at("file")->Send({{"url", "/tmp/x"}}, json::object()).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(ReceiversTest, SlackShapesAndOkFalse) {
  EXPECT_NE(P("slack").ValidateConfig({{"token", "t"}}).message().find("channel_name"),
            std::string::npos);
  EXPECT_FALSE(P("slack").ValidateConfig({{"token", "t"}, {"channel_name", "c"}, {"channel_type", "dm"}}).ok());
  json cfg = {{"token", "xoxb-1"}, {"channel_name", "me@x.io"}, {"channel_type", "user"},
              {"api_url", "http://slack/api/"}};
  http_.replies = {HttpResult{200, R"({"ok":true,"user":{"id":"U1"}})"}, HttpResult{200, R"({"ok":true})"}};
  ASSERT_TRUE(P("slack").Send(cfg, {{"text", "hi"}}).ok());
  ASSERT_EQ(http_.requests.size(), 2u);
  EXPECT_EQ(http_.requests[0].method, "GET");
  EXPECT_EQ(http_.requests[0].url, "http://slack/api/users.lookupByEmail?email=me%40x.io");
  EXPECT_EQ(http_.requests[1].url, "http://slack/api/chat.postMessage");
  EXPECT_EQ(http_.requests[1].headers,
            (std::vector<std::string>{"Authorization: Bearer xoxb-1",
                                      "Content-Type: application/json; charset=utf-8"}));
  EXPECT_EQ(json::parse(http_.requests[1].body), json({{"channel", "U1"}, {"text", "hi"}}));

  json chan = {{"token", "xoxb-1"}, {"channel_name", "#c"}, {"api_url", "http://slack/api"}};
  http_.replies = {HttpResult{200, R"({"ok":false,"error":"not_in_channel"})"},
                   HttpResult{200, R"({"ok":false,"error":"ratelimited"})"}};
  absl::Status st = P("slack").Send(chan, {{"other", 1}});
  EXPECT_FALSE(IsRetryable(st));
  EXPECT_EQ(st.message(), "slack chat.postMessage: not_in_channel");
  // A payload without text/blocks/attachments is sent as text.
  EXPECT_EQ(json::parse(http_.requests.back().body)["text"], R"({"other":1})");
  EXPECT_TRUE(IsRetryable(P("slack").Send(chan, {{"text", "x"}})));

  // api_url must be an http(s) URL (C4).
  absl::Status file_url = P("slack").ValidateConfig(
      {{"token", "x"}, {"channel_name", "y"}, {"api_url", "file:///proc/self/environ#"}});
  EXPECT_EQ(file_url.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(file_url.message().find("configurations.api_url"), std::string::npos) << file_url;
  EXPECT_FALSE(P("slack").ValidateConfig({{"token", "x"}, {"channel_name", "y"}, {"api_url", 5}}).ok());
  EXPECT_FALSE(P("slack").ValidateConfig({{"token", "x"}, {"channel_name", "y"}, {"channel_type", 5}}).ok());
}

TEST_F(ReceiversTest, SlackNeverEchoesBodiesAndSurvivesOddReplies) {
  json chan = {{"token", "xoxb-1"}, {"channel_name", "#c"}, {"api_url", "http://slack/api"}};
  json user = {{"token", "xoxb-1"}, {"channel_name", "me@x.io"}, {"channel_type", "user"},
               {"api_url", "http://slack/api"}};
  // A non-2xx body (e.g. a local file read through file://) is never repeated.
  http_.replies = {HttpResult{500, "SLUICE_DB_DSN=host=db password=hunter2"}};
  absl::Status st = P("slack").Send(chan, {{"text", "x"}});
  EXPECT_EQ(st.message(), "slack chat.postMessage: HTTP 500");
  // Slack's error code is repeated only when it is a short [a-z_] token.
  http_.replies = {HttpResult{200, R"({"ok":false,"error":"SLUICE_DB_DSN=host=db password=x"})"},
                   HttpResult{200, absl::StrCat(R"({"ok":false,"error":")", std::string(65, 'a'),
                                                R"("})")},
                   HttpResult{200, R"({"ok":false,"error":7})"}};
  EXPECT_EQ(P("slack").Send(chan, {{"text", "x"}}).message(),
            "slack chat.postMessage: unrecognised_error");
  EXPECT_EQ(P("slack").Send(chan, {{"text", "x"}}).message(),
            "slack chat.postMessage: unrecognised_error");
  EXPECT_EQ(P("slack").Send(chan, {{"text", "x"}}).message(),
            "slack chat.postMessage: unknown_error");
  // Replies that used to throw (H1): no "ok", a non-boolean "ok", no user.
  http_.replies = {HttpResult{200, R"({"ok":"x"})"}, HttpResult{200, R"({})"},
                   HttpResult{200, R"({"ok":true})"}, HttpResult{200, R"({"ok":true,"user":5})"},
                   HttpResult{200, R"({"ok":true,"user":{"id":5}})"}, HttpResult{200, "[1]"}};
  EXPECT_FALSE(P("slack").Send(chan, {{"text", "x"}}).ok());
  EXPECT_FALSE(P("slack").Send(chan, {{"text", "x"}}).ok());
  for (int i = 0; i < 3; ++i) {
    absl::Status u = P("slack").Send(user, {{"text", "x"}});
    EXPECT_EQ(u.message(), "slack users.lookupByEmail: reply has no user.id") << u;
  }
  EXPECT_FALSE(P("slack").Send(chan, {{"text", "x"}}).ok());
}

TEST_F(ReceiversTest, PagerDutyEventsV2) {
  EXPECT_NE(P("pagerduty").ValidateConfig(json::object()).message().find("service_key"),
            std::string::npos);
  EXPECT_TRUE(P("pagerduty").ValidateConfig({{"routing_key", "r"}}).ok());
  absl::Status gopher =
      P("pagerduty").ValidateConfig({{"routing_key", "r"}, {"api_url", "gopher://h:70/x?"}});
  EXPECT_EQ(gopher.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(gopher.message().find("configurations.api_url"), std::string::npos) << gopher;
  json cfg = {{"service_key", "KEY"}, {"api_url", "http://pd"}};
  http_.replies = {HttpResult{202, R"({"status":"success"})"}, HttpResult{202, "{}"},
                   HttpResult{400, R"({"status":"invalid event"})"}};
  ASSERT_TRUE(P("pagerduty").Send(cfg, {{"event_action", "resolve"}, {"dedup_key", "d"}}).ok());
  EXPECT_EQ(http_.requests[0].url, "http://pd/v2/enqueue");
  EXPECT_EQ(json::parse(http_.requests[0].body),
            json({{"event_action", "resolve"}, {"dedup_key", "d"}, {"routing_key", "KEY"}}));
  // Free-form data becomes a trigger with custom_details.
  ASSERT_TRUE(P("pagerduty").Send(cfg, {{"summary", "disk full"}, {"host", "h1"}}).ok());
  json ev = json::parse(http_.requests[1].body);
  EXPECT_EQ(ev["event_action"], "trigger");
  EXPECT_EQ(ev["payload"]["summary"], "disk full");
  EXPECT_EQ(ev["payload"]["severity"], "info");
  EXPECT_EQ(ev["payload"]["custom_details"]["host"], "h1");
  // The summary is cut at 1024 bytes without splitting a character (H1).
  http_.replies = {HttpResult{202, "{}"}};
  ASSERT_TRUE(P("pagerduty").Send(cfg, {{"k", std::string(1015, 'a') + "\xc3\xa9\xc3\xa9"}}).ok());
  EXPECT_EQ(json::parse(http_.requests.back().body)["payload"]["summary"].get<std::string>().size(),
            1023u);
  http_.replies = {HttpResult{400, R"({"status":"invalid event"})"}};
  absl::Status bad = P("pagerduty").Send(cfg, {{"event_action", "trigger"}});
  EXPECT_FALSE(IsRetryable(bad));
  EXPECT_EQ(bad.message(), "pagerduty enqueue: HTTP 400");
}

}  // namespace
}  // namespace sluice::notification::receivers
