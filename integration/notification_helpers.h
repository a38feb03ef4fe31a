// Helpers shared by the notification end-to-end tests: a Stack configured
// for fast delivery, REST calls under /api/v1beta1, and waiting for messages.
#ifndef SLUICE_INTEGRATION_NOTIFICATION_HELPERS_H_
#define SLUICE_INTEGRATION_NOTIFICATION_HELPERS_H_

#include <sys/types.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/harness.h"

namespace sluice::integration {

// A temp file path for a server config.
inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir ? dir : "/tmp", "/", name);
}

// A uint64 JSON value (proto3 JSON renders uint64 as a string).
inline uint64_t U64(const nlohmann::json& j) {
  if (j.is_number()) return j.get<uint64_t>();
  uint64_t v = 0;
  if (j.is_string()) (void)absl::SimpleAtoi(j.get<std::string>(), &v);
  return v;
}

class NotificationApi {
 public:
  explicit NotificationApi(Stack* stack) : stack_(stack) {}
  std::string Url(absl::string_view path) const {
    return absl::StrCat(stack_->http_base(), "/api/v1beta1", path);
  }
  HttpResponse Call(absl::string_view method, absl::string_view path, const nlohmann::json& body = {},
                    std::vector<std::string> headers = {}) const {
    bool has_caller = false;
    for (const auto& h : headers) has_caller |= absl::StartsWithIgnoreCase(h, "X-Auth-Email:");
    if (!has_caller) headers.push_back("X-Auth-Email: tester@example.com");
    return Http(method, Url(path), body.is_null() ? "" : body.dump(), headers);
  }
  // POST /receivers; returns the id (0 and a test failure otherwise).
  uint64_t CreateReceiver(const nlohmann::json& body) const {
    auto r = Call("POST", "/receivers", body);
    EXPECT_EQ(r.status, 200) << r.body;
    return U64(r.Json()["id"]);
  }
  uint64_t CreateSubscription(const nlohmann::json& body) const {
    auto r = Call("POST", "/subscriptions", body);
    EXPECT_EQ(r.status, 200) << r.body;
    return U64(r.Json()["id"]);
  }
  uint64_t Notify(const nlohmann::json& body, std::vector<std::string> headers = {}) const {
    auto r = Call("POST", "/notifications", body, std::move(headers));
    EXPECT_EQ(r.status, 200) << r.body;
    return U64(r.Json()["notification_id"]);
  }
  nlohmann::json Messages(uint64_t id) const {
    return Call("GET", absl::StrCat("/notifications/", id, "/messages")).Json()["messages"];
  }
  // Polls until every message of `id` is published, failed or expired.
  nlohmann::json WaitSettled(uint64_t id, absl::Duration timeout = absl::Seconds(30)) const {
    absl::Time deadline = absl::Now() + timeout;
    nlohmann::json msgs;
    while (absl::Now() < deadline) {
      msgs = Messages(id);
      bool settled = msgs.is_array() && !msgs.empty();
      for (const auto& m : msgs) {
        std::string s = m.value("status", "");
        if (s != "published" && s != "failed" && s != "expired") settled = false;
      }
      if (settled) return msgs;
      absl::SleepFor(absl::Milliseconds(100));
    }
    ADD_FAILURE() << "messages of notification " << id << " did not settle: " << msgs.dump();
    return msgs;
  }

 private:
  Stack* stack_;
};

// The peak resident memory (VmHWM, KiB) of process `pid`, or -1.
inline long PeakRssKiB(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

// Expects an rpcStatus body with `code` whose message contains `part`.
inline void ExpectError(const HttpResponse& r, int code, absl::string_view part = "") {
  EXPECT_GE(r.status, 400) << r.body;
  nlohmann::json j = r.Json();
  EXPECT_EQ(j.value("code", -1), code) << r.body;
  EXPECT_NE(j.value("message", "").find(std::string(part)), std::string::npos) << r.body;
}

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_NOTIFICATION_HELPERS_H_
