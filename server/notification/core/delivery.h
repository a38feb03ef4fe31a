// The delivery worker pool: claims due messages from the durable queue,
// renders them, sends them through the receiver plugin and records the
// outcome (published / retry with exponential backoff / failed / expired).
// Before sending, the receiver configuration merged with the override is
// checked again (ValidateConfig, OverrideKeepsDestination); an exception
// from any step fails only that message ("internal error while
// delivering: ..."), never the worker thread.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_DELIVERY_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_DELIVERY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "server/notification/core/catalog.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/core/repository.h"

namespace sluice::notification {

struct DeliveryOptions {
  int workers = 4;                                         // threads; 0 disables delivery
  int batch_size = 16;                                     // messages claimed per query
  absl::Duration poll_interval = absl::Seconds(1);         // idle wait between polls
  absl::Duration lease = absl::Seconds(60);                // a claimed message's lease
  absl::Duration backoff_base = absl::Seconds(1);          // wait after the first failed try
  absl::Duration backoff_max = absl::Minutes(5);           // cap of the doubling backoff
  // Called for every message after its payload is rendered and before it is
  // sent, with the receiver's type ("slack", "slack_channel", ...) and id, the
  // data the template was rendered with, and the payload to change in place
  // (e.g. the Slack approval buttons of server/slack/approval_buttons.h).
  // Called from the worker threads: must be thread-safe. An exception it
  // throws fails that message like any other ("internal error while
  // delivering: ..."). Empty (the default): payloads are sent as rendered.
  using PayloadDecorator =
      std::function<void(absl::string_view receiver_type, uint64_t receiver_id,
                         const nlohmann::json& data, nlohmann::json* payload)>;
  PayloadDecorator decorate_payload;
};

// Outcome counters (for tests and metrics).
struct DeliveryStats {
  std::atomic<int64_t> published{0}, failed{0}, retried{0}, expired{0};
};

class DeliveryWorkerPool {
 public:
  // Called with each outcome: "published", "retried", "failed" or "expired"
  // (and the count), e.g. to feed metrics. Must be thread-safe.
  using OutcomeFn = std::function<void(absl::string_view outcome, int count)>;

  DeliveryWorkerPool(NotificationRepository* repo, ReceiverPlugins* plugins,
                     const SecretCodec* codec, DeliveryOptions options, OutcomeFn on_outcome = {})
      : repo_(repo),
        plugins_(plugins),
        codec_(codec),
        options_(options),
        on_outcome_(std::move(on_outcome)) {}
  ~DeliveryWorkerPool() { Stop(); }

  // Starts options.workers threads.
  void Start();
  // Wakes idle workers to poll now (called after an enqueue).
  void Wake();
  // Stops the threads after their current message; claimed messages not yet
  // sent go back to the queue unchanged (idempotent).
  void Stop();

  // One poll: expire, claim up to batch_size, deliver each. Returns how many
  // messages were claimed. Used by the threads and by tests.
  absl::StatusOr<int> RunOnce();

  // The wait before try `try_count` + 1: backoff_base · 2^(try_count-1), capped.
  absl::Duration Backoff(int try_count) const;

  const DeliveryStats& stats() const { return stats_; }

 private:
  void Loop(int index);
  bool Stopping();
  void Count(absl::string_view outcome, int n);
  // Sends one claimed message and records its outcome.
  absl::Status Deliver(const ClaimedMessage& m);
  // Records `m` as failed after an exception escaped Deliver.
  absl::Status FailOnException(const ClaimedMessage& m, absl::string_view what);

  NotificationRepository* repo_;
  ReceiverPlugins* plugins_;
  const SecretCodec* codec_;
  DeliveryOptions options_;
  OutcomeFn on_outcome_;
  DeliveryStats stats_;
  std::vector<std::thread> threads_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t wakeups_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_DELIVERY_H_
