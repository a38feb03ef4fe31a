// Access events as notification requests, and the default templates: each
// renders valid JSON for Slack and for other receivers.
#include "server/access/event_notifier.h"

#include <gtest/gtest.h>

#include "server/notification/core/template_engine.h"

namespace sluice::access {
namespace {

TEST(EventNotifierTest, RequestSelectsRecipientsByEmailAndCarriesLabels) {
  AccessEvent e;
  e.id = "appeal.created:a1";
  e.type = kEventAppealCreated;
  e.recipients = {"o@x.com", "p@x.com"};
  e.labels = {{"event", "appeal.created"}, {"provider_type", "bigquery"}};
  e.variables = {{"appeal_id", "a1"}};
  auto req = ToNotificationRequest(e);
  ASSERT_EQ(req.receivers.size(), 2u);
  EXPECT_EQ(req.receivers[0], (nlohmann::json{{"email", "o@x.com"}}));
  EXPECT_EQ(req.template_name, "access-appeal-created");
  EXPECT_EQ(req.labels.at("provider_type"), "bigquery");
  EXPECT_EQ((*req.data)["appeal_id"], "a1");
  EXPECT_EQ((*req.data)["event"], "appeal.created");
  EXPECT_EQ(EventIdempotencyKey(e), "access-event:appeal.created:a1");
}

TEST(EventNotifierTest, DefaultTemplatesRenderJsonForEveryReceiverType) {
  nlohmann::json data = {{"event", "x"},           {"requestor", "u@x.com"},
                         {"resource_name", "t \"q\""}, {"role", "viewer"},
                         {"appeal_id", "a1"},      {"reason", "line\nbreak"},
                         {"on_behalf", true}};
  for (const std::string& type : AllEventTypes()) {
    notification::Template t;
    t.name = EventTemplateName(type);
    t.body = DefaultEventTemplateBody(type);
    ASSERT_TRUE(notification::ValidateTemplateBody(t.body).ok()) << type;
    auto slack = notification::RenderPayload(t, data, "slack");
    ASSERT_TRUE(slack.ok()) << type << ": " << slack.status();
    EXPECT_TRUE((*slack)["text"].is_string()) << type;
    EXPECT_FALSE(slack->contains("data")) << type;
    auto http = notification::RenderPayload(t, data, "http");
    ASSERT_TRUE(http.ok()) << type << ": " << http.status();
    EXPECT_EQ((*http)["data"]["appeal_id"], "a1") << type;
  }
}

// grant.restored (security review F-H1): who restored it, why, and until
// when; no expiry sentence for a permanent grant.
TEST(EventNotifierTest, GrantRestoredTemplateSaysWhoWhyAndUntilWhen) {
  notification::Template t;
  t.name = EventTemplateName(kEventGrantRestored);
  t.body = DefaultEventTemplateBody(kEventGrantRestored);
  nlohmann::json data = {{"resource_name", "orders (bigquery: p.d)"}, {"role", "viewer"},
                         {"restored_by", "admin@x.com"},            {"reason", "approved again"},
                         {"expiration_date_formatted", "Jan 02, 2027 15:04:05 UTC"}};
  auto dated = notification::RenderPayload(t, data, "slack");
  ASSERT_TRUE(dated.ok()) << dated.status();
  EXPECT_EQ((*dated)["text"],
            "Your access to *orders (bigquery: p.d)* with role *viewer* has been restored by "
            "admin@x.com: approved again. It will expire at *Jan 02, 2027 15:04:05 UTC*");
  data.erase("expiration_date_formatted");
  auto permanent = notification::RenderPayload(t, data, "slack");
  ASSERT_TRUE(permanent.ok()) << permanent.status();
  EXPECT_EQ((*permanent)["text"],
            "Your access to *orders (bigquery: p.d)* with role *viewer* has been restored by "
            "admin@x.com: approved again");
}

}  // namespace
}  // namespace sluice::access
