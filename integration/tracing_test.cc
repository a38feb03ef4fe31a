// One approval traced from the REST call to the provider (issue 43): a real
// OpenTelemetry Collector (scripts/install-otelcol.sh builds it from the
// collector's Go modules) receives OTLP/gRPC from sluice-gateway and
// sluice-server and exports every span as OTLP/JSON to an HTTP server of
// this test. The approval is sent with a client traceparent, so every span,
// the provider's traceparent header and the audit row must carry its trace
// id. Then the collector is stopped and the same flow still succeeds.
#include <soci/postgresql/soci-postgresql.h>
#include <unistd.h>
#include <soci/soci.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "integration/grafana_access.h"
#include "integration/harness.h"
#include "integration/otel_collector.h"
#include "integration/process.h"
#include "nlohmann/json.hpp"
#include "server/access/providers/grafana/testing/fake_grafana.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

constexpr char kApprover[] = "approver@example.com";
constexpr char kAlice[] = "alice@example.com";

class TracingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::access(CollectorBinary().c_str(), X_OK), 0)
        << CollectorBinary() << " is missing: run scripts/install-otelcol.sh (or set SLUICE_OTELCOL)";
    collector_port_ = FreePort();
    collector_ = StartCollector(sink_, collector_port_);
    ASSERT_NE(collector_, nullptr);
    grafana_ = access::testing::FakeGrafana::Start("admin@localhost", "password", "unused");
    ASSERT_NE(grafana_, nullptr);
    dashboard_ = grafana_->AddDashboard("CPU", grafana_->AddFolder("Ops"));
    grafana_->AddUser(kAlice);
    Stack::Options opts;
    opts.server_env = OtelEnv(collector_port_);
    opts.gateway_env = OtelEnv(collector_port_);
    auto stack = Stack::Start(opts);
    ASSERT_TRUE(stack.ok()) << stack.status();
    stack_ = std::move(*stack);
    GrafanaAccess setup =
        GrafanaDashboardAccess("traced", "grafana-traced", grafana_->url(), {kApprover});
    ASSERT_EQ(Call("POST", "/policies", setup.policy).status, 200);
    auto pr = Call("POST", "/providers", setup.provider);
    ASSERT_EQ(pr.status, 200) << pr.body;
    auto rs = Call("GET", "/resources?provider_urn=grafana-traced&type=dashboard");
    ASSERT_EQ(rs.status, 200) << rs.body;
    ASSERT_FALSE(rs.Json()["resources"].empty()) << rs.body;
    resource_id_ = rs.Json()["resources"][0]["id"];
  }

  HttpResponse Call(const std::string& method, const std::string& path, const json& body = nullptr,
                    const std::string& as = kAlice, const std::string& traceparent = "") {
    std::vector<std::string> headers = {"X-Auth-Email: " + as};
    if (!traceparent.empty()) headers.push_back("traceparent: " + traceparent);
    return Http(method, absl::StrCat(stack_->http_base(), "/api/v1beta1", path),
                body.is_null() ? "" : body.dump(), headers);
  }

  // Appeals for the dashboard and approves it with `traceparent`; returns
  // the appeal id once its grant is active.
  std::string AppealAndApprove(const std::string& traceparent) {
    json appeal = {{"resources", {{{"id", resource_id_}, {"role", "viewer"}}}}};
    auto a = Call("POST", "/appeals", appeal);
    EXPECT_EQ(a.status, 200) << a.body;
    if (a.status != 200) return "";
    std::string id = a.Json()["appeals"][0]["id"];
    auto r = Call("POST", "/appeals/" + id + "/approvals/approver",
                  json{{"action", "approve"}, {"reason", "traced"}}, kApprover, traceparent);
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.Json()["appeal"]["status"], "approved") << r.body;
    return id;
  }

  SpanSink sink_;
  int collector_port_ = 0;
  std::unique_ptr<Process> collector_;
  std::unique_ptr<access::testing::FakeGrafana> grafana_;
  std::unique_ptr<Stack> stack_;
  int dashboard_ = 0;
  std::string resource_id_;
};

std::string Describe(const std::vector<Span>& spans) {
  std::string out;
  for (const auto& s : spans) {
    absl::StrAppend(&out, "  ", s.service, " ", s.name, " span ", s.span_id, " parent ",
                    s.parent_id, "\n");
  }
  return out;
}

TEST_F(TracingTest, OneApprovalIsOneTraceFromRestToTheProvider) {
  const std::string trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  const size_t provider_calls_before = grafana_->server().HeaderValues("traceparent").size();
  std::string appeal_id = AppealAndApprove(absl::StrCat("00-", trace_id, "-00f067aa0ba902b7-01"));
  ASSERT_FALSE(appeal_id.empty());
  EXPECT_TRUE(WaitFor([&] { return grafana_->Level(grafana_->DashboardUid(dashboard_), kAlice) > 0; },
                      absl::Seconds(15)));

  // The gateway's, the server's and the provider call's spans, all in the
  // client's trace. A child span ends, and may be exported, before its
  // parent: wait until no span's parent is missing (a CI run checked while
  // the server's request span was still in its batch).
  std::set<std::string> services;
  ASSERT_TRUE(WaitFor(
      [&] {
        services.clear();
        bool provider_span = false;
        std::set<std::string> known = {"00f067aa0ba902b7"};
        const auto spans = sink_.OfTrace(trace_id);
        for (const auto& s : spans) {
          services.insert(s.service);
          known.insert(s.span_id);
          if (s.service == "sluice-server" && absl::StartsWith(s.name, "HTTP ")) provider_span = true;
        }
        bool parents_known = true;
        for (const auto& s : spans) parents_known = parents_known && known.count(s.parent_id) > 0;
        return services.count("sluice-gateway") && services.count("sluice-server") && provider_span &&
               parents_known;
      },
      absl::Seconds(30)))
      << "spans of the trace:\n" << Describe(sink_.OfTrace(trace_id)) << "all spans: "
      << sink_.Spans().size() << "\ncollector:\n" << collector_->Output();
  auto spans = sink_.OfTrace(trace_id);
  // One trace: every span but the first has its parent in the trace or is
  // the child of the client's span.
  std::set<std::string> ids = {"00f067aa0ba902b7"};
  for (const auto& s : spans) ids.insert(s.span_id);
  for (const auto& s : spans) EXPECT_TRUE(ids.count(s.parent_id)) << Describe(spans);
  bool gateway_route = false;
  for (const auto& s : spans) {
    if (s.service == "sluice-gateway" &&
        s.name == "POST /api/v1beta1/appeals/{id}/approvals/{approval_name}") {
      gateway_route = true;
    }
  }
  EXPECT_TRUE(gateway_route) << Describe(spans);
  std::printf("trace %s, %zu spans:\n%s", trace_id.c_str(), spans.size(), Describe(spans).c_str());

  // The provider saw the trace id in traceparent on the calls the approval
  // made.
  auto headers = grafana_->server().HeaderValues("traceparent");
  int traced = 0;
  for (size_t i = provider_calls_before; i < headers.size(); ++i) {
    if (absl::StartsWith(headers[i], absl::StrCat("00-", trace_id, "-"))) ++traced;
  }
  EXPECT_GT(traced, 0) << absl::StrJoin(headers, "\n");

  // The audit row of the approval holds the trace id.
  soci::session sql(soci::postgresql, stack_->database().dsn());
  int rows = 0;
  sql << "SELECT count(*) FROM audit_logs WHERE trace_id = :t", soci::use(trace_id),
      soci::into(rows);
  EXPECT_GE(rows, 1);
}

TEST_F(TracingTest, WithTheCollectorStoppedTheFlowStillSucceeds) {
  ASSERT_EQ(collector_->Stop(absl::Seconds(10)) & 0x7f, 0);
  const absl::Time start = absl::Now();
  std::string appeal_id = AppealAndApprove("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  ASSERT_FALSE(appeal_id.empty());
  std::printf("appeal and approval with the collector down: %.0f ms\n",
              absl::ToDoubleMilliseconds(absl::Now() - start));
  // The grant is applied in the provider.
  EXPECT_TRUE(WaitFor([&] { return grafana_->Level(grafana_->DashboardUid(dashboard_), kAlice) > 0; },
                      absl::Seconds(15)));
}

}  // namespace
}  // namespace sluice::integration
