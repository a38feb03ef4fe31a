#include "server/notification/core/delivery.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/trace/span.h"
#include "server/notification/core/template_engine.h"
#include "spdlog/spdlog.h"

namespace sluice::notification {
namespace {

// A child receiver's configuration (with its override) over its parent's
// (both decrypted): the parent's secrets and destination keys always win (and
// are dropped when the parent has none), so neither the child nor an override
// can send the parent's credentials elsewhere; other parent keys fill in what
// the child lacks (e.g. slack's workspace).
nlohmann::json WithParent(const ReceiverPlugin& parent_plugin, nlohmann::json child,
                          const nlohmann::json& parent) {
  if (!child.is_object()) child = nlohmann::json::object();
  if (!parent.is_object()) return child;
  for (const auto& [k, v] : parent.items()) {
    if (!child.contains(k)) child[k] = v;
  }
  std::vector<std::string> owned = parent_plugin.SecretKeys();
  for (const std::string& k : parent_plugin.DestinationKeys()) owned.push_back(k);
  for (const std::string& k : owned) {
    if (parent.contains(k)) {
      child[k] = parent[k];
    } else {
      child.erase(k);
    }
  }
  return child;
}

// `s` with every byte that does not belong to a well-formed UTF-8 sequence
// replaced by U+FFFD. A message's last_error goes to a TEXT column
// (PostgreSQL refuses invalid UTF-8, so the outcome would never be recorded
// and the message would be claimed again after every lease) and to a proto3
// string in replies, while error texts may quote raw bytes: the JSON
// parser's message shows what it read up to the error, which can end inside
// a character (found by scripts/fuzz-requests.sh), and FailOnException cuts
// at a byte count.
std::string ValidUtf8(absl::string_view s) {
  static constexpr uint32_t kMinOfLength[] = {0, 0, 0x80, 0x800, 0x10000};
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    uint32_t cp = n > 1 ? c & (0x7F >> n) : c;
    for (size_t k = 1; ok && k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      ok = (b & 0xC0) == 0x80;
      cp = (cp << 6) | (b & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if (ok && n > 1) ok = cp >= kMinOfLength[n] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    if (ok) {
      out.append(s.data() + i, n);
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace

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
    absl::StatusOr<int> claimed = 0;
    try {
      claimed = RunOnce();
    } catch (const std::exception& e) {
      // RunOnce catches per message; this is a last line for the queue calls.
      claimed = absl::InternalError(absl::StrCat("unexpected exception: ", e.what()));
    } catch (...) {
      claimed = absl::InternalError("unexpected exception");
    }
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
      (void)repo_->Release(m.message.id, m.lease);  // a later run or replica sends it
      continue;
    }
    // The delivery continues the trace of the request that created the
    // notification (a new trace when none was stored): the receiver's HTTP
    // call carries it as traceparent and these log lines carry its id.
    auto parent = trace::ParseTraceparent(m.traceparent);
    trace::ScopedSpan span("notification.deliver", trace::SpanKind::kConsumer,
                           parent ? &*parent : nullptr);
    span.span().SetAttribute("sluice.notification.message_id",
                             static_cast<int64_t>(m.message.id));
    span.span().SetAttribute("sluice.receiver.type", m.message.receiver_type);
    absl::Status st;
    // One bad message (odd user data, a plugin bug) must fail alone, never
    // end the thread (std::terminate) and so the process.
    try {
      st = Deliver(m);
    } catch (const std::exception& e) {
      st = FailOnException(m, e.what());
    } catch (...) {
      st = FailOnException(m, "unknown exception");
    }
    if (absl::IsAborted(st)) {
      // Sent after the lease ran out: another claim owns (and resends) it.
      spdlog::warn("message {}: {}", m.message.id, std::string(st.message()));
    } else if (!st.ok()) {
      spdlog::warn("message {}: recording the outcome failed: {}", m.message.id, st.ToString());
    }
  }
  return static_cast<int>(batch->size());
}

absl::Status DeliveryWorkerPool::FailOnException(const ClaimedMessage& m, absl::string_view what) {
  std::string reason =
      ValidUtf8(absl::StrCat("internal error while delivering: ", what.substr(0, 160)));
  spdlog::error("message {} to receiver {}: {}", m.message.id, m.message.receiver_id, reason);
  ++stats_.failed;
  Count("failed", 1);
  try {
    return repo_->MarkFailed(m.message.id, m.lease, reason);
  } catch (const std::exception& e) {
    return absl::InternalError(e.what());
  }
}

namespace {

// What a template renders. The default template sends what Siren's message
// details hold when no content template applies (core/notification/
// message.go InitMessage): the notification's labels, then its data over
// them, then notification_type ("alert" or "event").
// Only for the receivers that send details as they are (http, file): a
// Slack, Lark or PagerDuty message is the data itself, and their APIs would
// see the extra keys.
nlohmann::json DataFor(const ClaimedMessage& m) {
  if (m.template_name != kDefaultTemplate || !m.data.is_object() ||
      (m.message.receiver_type != "http" && m.message.receiver_type != "file")) {
    return m.data;
  }
  nlohmann::json details = m.labels.is_object() ? m.labels : nlohmann::json::object();
  for (auto it = m.data.begin(); it != m.data.end(); ++it) details[it.key()] = it.value();
  details["notification_type"] = m.source == "alert" ? "alert" : "event";
  return details;
}

}  // namespace

absl::Status DeliveryWorkerPool::Deliver(const ClaimedMessage& m) {
  const Message& msg = m.message;
  auto fail = [&](const std::string& raw_error) {
    std::string error = ValidUtf8(raw_error);
    ++stats_.failed;
    Count("failed", 1);
    spdlog::info("message {} to receiver {} failed: {}", msg.id, msg.receiver_id, error);
    return repo_->MarkFailed(msg.id, m.lease, error);
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
  const nlohmann::json data = DataFor(m);
  auto payload = RenderPayload(*t, data, msg.receiver_type);
  if (!payload.ok()) return fail(std::string(payload.status().message()));
  if (options_.decorate_payload) {
    options_.decorate_payload(msg.receiver_type, msg.receiver_id, data, &*payload);
  }

  // Rows stored before overrides and configurations were validated may hold
  // anything: check them as the API now does, and never send a receiver's
  // secrets to a destination an override changed.
  auto base = codec_->Open(msg.receiver_type, m.receiver_config, ReceiverPlace(msg.receiver_id));
  if (!base.ok()) return fail(std::string(base.status().message()));
  // Overrides hold no secrets now; rows from before may hold legacy ones.
  auto override = codec_->Open(msg.receiver_type, m.config_override, "subscription-overrides");
  if (!override.ok()) return fail(std::string(override.status().message()));
  if (auto st = OverrideKeepsDestination(*plugin->second, msg.receiver_type, *base, *override,
                                         "subscription override ");
      !st.ok()) {
    return fail(absl::StrCat(st.message(), " (refused)"));
  }
  nlohmann::json opened = MergeOverride(*std::move(base), *override);
  if (!plugin->second->ParentType().empty()) {
    if (m.parent_type.empty()) {
      return fail(absl::StrCat("parent receiver ", m.parent_id, " no longer exists"));
    }
    auto parent_plugin = plugins_->find(m.parent_type);
    if (parent_plugin == plugins_->end() ||
        m.parent_type != plugin->second->ParentType()) {
      return fail(absl::StrCat("parent receiver ", m.parent_id, " is of type \"", m.parent_type,
                               "\", not ", plugin->second->ParentType()));
    }
    auto parent = codec_->Open(m.parent_type, m.parent_config, ReceiverPlace(m.parent_id));
    if (!parent.ok()) return fail(std::string(parent.status().message()));
    opened = WithParent(*parent_plugin->second, std::move(opened), *parent);
  }
  if (auto st = plugin->second->ValidateConfig(opened); !st.ok()) {
    return fail(absl::StrCat("invalid receiver configuration: ",
                             codec_->Redact(msg.receiver_type, opened, st.message())));
  }

  absl::Status sent = plugin->second->Send(opened, *payload);
  if (sent.ok()) {
    ++stats_.published;
    Count("published", 1);
    return repo_->MarkPublished(msg.id, m.lease);
  }
  std::string error(sent.message());
  if (IsRetryable(sent) && msg.try_count < msg.max_tries) {
    ++stats_.retried;
    Count("retried", 1);
    return repo_->MarkRetry(msg.id, m.lease, ValidUtf8(error),
                            absl::Now() + Backoff(msg.try_count));
  }
  if (IsRetryable(sent)) error = absl::StrCat("after ", msg.try_count, " tries: ", error);
  return fail(error);
}

}  // namespace sluice::notification
