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

}  // namespace
}  // namespace sluice::access
