#include "server/notification/core/delivery.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/notification/core/template_engine.h"
#include "spdlog/spdlog.h"

namespace sluice::notification {

absl::Duration DeliveryWorkerPool::Backoff(int try_count) const {
  absl::Duration d = options_.backoff_base;
  for (int i = 1; i < try_count && d < options_.backoff_max; ++i) d *= 2;
  return std::min(d, options_.backoff_max);
}

void DeliveryWorkerPool::Start() {
  for (int i = 0; i < options_.workers; ++i) threads_.emplace_back([this, i] { Loop(i); });
}

void DeliveryWorkerPool::Wake() {
  absl::MutexLock lock(&mu_);
  ++wakeups_;
}

void DeliveryWorkerPool::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void DeliveryWorkerPool::Loop(int index) {
  int64_t seen = 0;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      seen = wakeups_;
    }
    auto claimed = RunOnce();
    if (!claimed.ok()) {
      spdlog::warn("notification worker {}: {}", index, claimed.status().ToString());
    }
    if (claimed.ok() && *claimed > 0) continue;  // more may be due
    absl::MutexLock lock(&mu_);
    auto woken = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return stopping_ || wakeups_ != seen; };
    mu_.AwaitWithTimeout(absl::Condition(&woken), options_.poll_interval);
  }
}

bool DeliveryWorkerPool::Stopping() {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

void DeliveryWorkerPool::Count(absl::string_view outcome, int n) {
  if (n > 0 && on_outcome_) on_outcome_(outcome, n);
}

absl::StatusOr<int> DeliveryWorkerPool::RunOnce() {
  auto expired = repo_->ExpireDue(absl::Now());
  if (!expired.ok()) return expired.status();
  stats_.expired += *expired;
  Count("expired", *expired);
  auto batch = repo_->Claim(options_.batch_size, options_.lease);
  if (!batch.ok()) return batch.status();
  for (const ClaimedMessage& m : *batch) {
    if (Stopping()) {
      (void)repo_->Release(m.message.id);  // a later run or replica sends it
      continue;
    }
    if (auto st = Deliver(m); !st.ok()) {
      spdlog::warn("message {}: recording the outcome failed: {}", m.message.id, st.ToString());
    }
  }
  return static_cast<int>(batch->size());
}

absl::Status DeliveryWorkerPool::Deliver(const ClaimedMessage& m) {
  const Message& msg = m.message;
  auto fail = [&](const std::string& error) {
    ++stats_.failed;
    Count("failed", 1);
    spdlog::info("message {} to receiver {} failed: {}", msg.id, msg.receiver_id, error);
    return repo_->MarkFailed(msg.id, error);
  };
  if (!m.receiver_exists) return fail(absl::StrCat("receiver ", msg.receiver_id, " no longer exists"));
  auto plugin = plugins_->find(msg.receiver_type);
  if (plugin == plugins_->end()) {
    return fail(absl::StrCat("unknown receiver type \"", msg.receiver_type, "\""));
  }
  std::string name = ResolveTemplateName(m.template_name, msg.receiver_type);
  const Template* t = FindBuiltinTemplate(name);
  if (t == nullptr && m.user_template) t = &*m.user_template;
  if (t == nullptr) return fail(absl::StrCat("template \"", name, "\" not found"));
  auto payload = RenderPayload(*t, m.data, msg.receiver_type);
  if (!payload.ok()) return fail(std::string(payload.status().message()));

  nlohmann::json config = m.receiver_config.is_object() ? m.receiver_config : nlohmann::json::object();
  if (m.config_override.is_object()) {
    for (auto it = m.config_override.begin(); it != m.config_override.end(); ++it) {
      config[it.key()] = it.value();
    }
  }
  auto opened = codec_->Open(msg.receiver_type, config);
  if (!opened.ok()) return fail(std::string(opened.status().message()));

  absl::Status sent = plugin->second->Send(*opened, *payload);
  if (sent.ok()) {
    ++stats_.published;
    Count("published", 1);
    return repo_->MarkPublished(msg.id);
  }
  std::string error(sent.message());
  if (IsRetryable(sent) && msg.try_count < msg.max_tries) {
    ++stats_.retried;
    Count("retried", 1);
    return repo_->MarkRetry(msg.id, error, absl::Now() + Backoff(msg.try_count));
  }
  if (IsRetryable(sent)) error = absl::StrCat("after ", msg.try_count, " tries: ", error);
  return fail(error);
}

}  // namespace sluice::notification
