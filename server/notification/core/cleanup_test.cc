#include "server/notification/core/cleanup.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "server/notification/core/fakes.h"

namespace sluice::notification {
namespace {

using testing::FakeNotificationRepository;
using testing::FakeReceiverRepository;

// One notification with `n` messages to receiver 1.
std::vector<uint64_t> Enqueue(FakeNotificationRepository& queue, int n) {
  Notification notification;
  notification.template_name = "system-default";
  std::vector<Delivery> ds(n, Delivery{1, "http", nlohmann::json::object()});
  uint64_t id = *queue.Create(notification, ds, 3, absl::Now() + absl::Hours(1));
  std::vector<uint64_t> out;
  for (const Message& m : *queue.ListMessages(id)) out.push_back(m.id);
  return out;
}

TEST(CleanupQueueTest, DeletesOnlyPublishedMessagesOlderThanTheRetention) {
  FakeReceiverRepository receivers;
  FakeNotificationRepository queue;
  queue.receivers = &receivers;  // Claim looks the receiver up
  std::vector<uint64_t> ids = Enqueue(queue, 4);
  auto claimed = queue.Claim(3, absl::Minutes(1));
  ASSERT_EQ(claimed->size(), 3u);
  std::vector<uint64_t> published;
  for (const ClaimedMessage& c : *claimed) {
    ASSERT_TRUE(queue.MarkPublished(c.message.id, c.lease).ok());
    published.push_back(c.message.id);
  }
  uint64_t unsent = 0;
  for (uint64_t id : ids) {
    if (std::find(published.begin(), published.end(), id) == published.end()) unsent = id;
  }
  ASSERT_NE(unsent, 0u);
  // Two were published 8 days ago, one just now; the fourth was never sent.
  const absl::Time old = absl::Now() - absl::Hours(24 * 8);
  queue.messages[published[0]].m.updated_at = old;
  queue.messages[published[1]].m.updated_at = old;
  queue.messages[unsent].m.updated_at = old;

  auto deleted = CleanupQueue(queue, absl::Now(), kDefaultQueueRetention);
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 2);
  EXPECT_EQ(queue.messages.count(published[0]), 0u);
  EXPECT_EQ(queue.messages.count(published[1]), 0u);
  EXPECT_EQ(queue.messages.at(published[2]).m.status, kPublished);  // younger than 7 days
  EXPECT_EQ(queue.messages.at(unsent).m.status, kEnqueued);         // not sent yet
  EXPECT_EQ(*CleanupQueue(queue, absl::Now(), kDefaultQueueRetention), 0);
}

TEST(CleanupQueueTest, RejectsANonPositiveRetention) {
  FakeNotificationRepository queue;
  auto r = CleanupQueue(queue, absl::Now(), absl::ZeroDuration());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
  EXPECT_NE(r.status().message().find("queue_retention_seconds"), std::string::npos);
}

}  // namespace
}  // namespace sluice::notification
