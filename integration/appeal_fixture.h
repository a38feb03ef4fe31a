// Shared fixture of the appeal end-to-end tests: one Stack per test binary
// (grant expiry every 500 ms), REST helpers under /api/v1beta1, a noop
// provider + policy setup, and error-shape checks.
#ifndef SLUICE_INTEGRATION_APPEAL_FIXTURE_H_
#define SLUICE_INTEGRATION_APPEAL_FIXTURE_H_

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "integration/harness.h"
#include "integration/suite_stack.h"

namespace sluice::integration {

// The X-Auth-Email header acting as `email`.
inline std::vector<std::string> As(const std::string& email) { return {"X-Auth-Email: " + email}; }
// The default caller.
inline const std::string kAlice = "alice@example.com";

class AppealTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() { StartSuiteStack("access:\n  grant_expiry_interval: 500ms\n"); }

  // `method` /api/v1beta1`path` with an optional JSON body, as `as` (no
  // X-Auth-Email when empty).
  static HttpResponse Call(absl::string_view method, absl::string_view path,
                           const nlohmann::json& body = nullptr, const std::string& as = kAlice) {
    return Http(method, absl::StrCat(stack_->http_base(), "/api/v1beta1", path),
                body.is_null() ? "" : body.dump(), as.empty() ? std::vector<std::string>{} : As(as));
  }

  // Creates policy `id` from `policy` (steps etc.), a noop provider pointing
  // at it, sets details.owner on its resource; returns the resource id.
  static std::string Setup(const std::string& id, nlohmann::json policy,
                           const std::string& owner = "owner@example.com") {
    policy["id"] = id;
    auto p = Call("POST", "/policies", policy);
    EXPECT_EQ(p.status, 200) << p.body;
    nlohmann::json provider = {
        {"type", "noop"},
        {"urn", "noop-" + id},
        {"allowed_account_types", {"user"}},
        {"resources",
         {{{"type", "noop"},
           {"policy", {{"id", id}, {"version", 1}}},
           {"roles", {{{"id", "viewer"}}, {{"id", "admin"}}}}}}}};
    auto pr = Call("POST", "/providers", provider);
    EXPECT_EQ(pr.status, 200) << pr.body;
    auto rs = Call("GET", "/resources?urn=noop-" + id).Json()["resources"];
    EXPECT_EQ(rs.size(), 1u);
    std::string rid = rs[0]["id"];
    EXPECT_EQ(
        Call("PUT", "/resources/" + rid, nlohmann::json{{"details", {{"owner", owner}}}}).status,
        200);
    return rid;
  }

  // POST /appeals for one resource and role.
  static HttpResponse Appeal(const std::string& resource_id, const std::string& role = "viewer",
                             const std::string& duration = "", const std::string& as = kAlice,
                             const std::string& account_id = "") {
    nlohmann::json r = {{"id", resource_id}, {"role", role}};
    if (!duration.empty()) r["options"] = {{"duration", duration}};
    nlohmann::json body = {{"resources", {r}}};
    if (!account_id.empty()) body["account_id"] = account_id;
    return Call("POST", "/appeals", body, as);
  }

  // approve|reject `step` of `appeal_id` as `as`; expects HTTP `want`.
  static nlohmann::json Act(const std::string& appeal_id, const std::string& step,
                            const std::string& action, const std::string& as, long want = 200) {
    auto r = Call("POST", "/appeals/" + appeal_id + "/approvals/" + step,
                  nlohmann::json{{"action", action}, {"reason", "because"}}, as);
    EXPECT_EQ(r.status, want) << r.body;
    return r.Json();
  }

  // A policy body: owner (from resource details) then lead@example.com.
  static nlohmann::json TwoStep() {
    return nlohmann::json::parse(R"({"steps": [
      {"name": "owner", "strategy": "manual", "approvers": ["$appeal.resource.details.owner"]},
      {"name": "lead", "strategy": "manual", "approvers": ["lead@example.com"]}],
      "appeal": {"allow_permanent_access": true}})");
  }
};

// The rpcStatus of `r`: HTTP status, code and (optionally) a message part.
inline void ExpectCode(const HttpResponse& r, long http, int code, absl::string_view needle = "") {
  EXPECT_EQ(r.status, http) << r.body;
  EXPECT_EQ(r.Json().value("code", -1), code) << r.body;
  if (!needle.empty()) {
    EXPECT_NE(r.Json().value("message", "").find(std::string(needle)), std::string::npos) << r.body;
  }
}

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_APPEAL_FIXTURE_H_
