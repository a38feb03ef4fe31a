// In-memory fakes of the notification repositories (alerting's too) and a
// scripted receiver plugin, for core unit tests. Not thread-safe beyond a single mutex.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_FAKES_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_FAKES_H_

#include <deque>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "server/notification/core/alerting.h"
#include "server/notification/core/labels.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/core/repository.h"
#include "server/notification/core/silence.h"

namespace sluice::notification::testing {

// `all`, cut to `page` (nullptr: everything); `total` (may be null) gets the count.
template <typename T>
std::vector<T> Paged(std::vector<T> all, const Page* page, int* total) {
  if (total != nullptr) *total = static_cast<int>(all.size());
  if (page == nullptr) return all;
  std::vector<T> out;
  for (size_t i = page->offset; i < all.size() && out.size() < static_cast<size_t>(page->size); ++i) {
    out.push_back(std::move(all[i]));
  }
  return out;
}

class FakeReceiverRepository : public ReceiverRepository {
 public:
  absl::StatusOr<uint64_t> NextId() override { return ++next_; }
  absl::StatusOr<uint64_t> Create(const Receiver& r, absl::string_view) override {
    Receiver c = r;
    if (c.id == 0) c.id = ++next_;
    rows[c.id] = c;
    return c.id;
  }
  absl::StatusOr<Receiver> Get(uint64_t id) override {
    auto it = rows.find(id);
    if (it == rows.end()) return absl::NotFoundError(absl::StrCat("receiver ", id, " not found"));
    return it->second;
  }
  absl::StatusOr<std::vector<Receiver>> List(const Labels& labels, const Page* page,
                                             int* total) override {
    std::vector<Receiver> out;
    for (auto& [id, r] : rows) {
      Labels all = r.labels;
      all["id"] = std::to_string(r.id);
      all["type"] = r.type;
      if (LabelsContain(all, labels)) out.push_back(r);
    }
    return Paged(std::move(out), page, total);
  }
  absl::StatusOr<std::vector<Receiver>> MatchAny(const std::vector<Labels>& selectors) override {
    std::vector<Receiver> out;
    for (auto& [id, r] : rows) {
      for (const Labels& sel : selectors) {
        if (LabelsContain(EffectiveLabels(r), sel)) {
          out.push_back(r);
          break;
        }
      }
    }
    return out;
  }
  absl::Status Update(const Receiver& r, absl::string_view) override {
    if (!rows.count(r.id)) return absl::NotFoundError("receiver not found");
    rows[r.id] = r;
    return absl::OkStatus();
  }
  absl::Status Delete(uint64_t id, absl::string_view) override {
    return rows.erase(id) ? absl::OkStatus() : absl::NotFoundError("receiver not found");
  }
  std::map<uint64_t, Receiver> rows;
  uint64_t next_ = 0;
};

class FakeSubscriptionRepository : public SubscriptionRepository {
 public:
  absl::StatusOr<uint64_t> Create(const Subscription& s, absl::string_view) override {
    Subscription c = s;
    c.id = ++next_;
    rows[c.id] = c;
    return c.id;
  }
  absl::StatusOr<Subscription> Get(uint64_t id) override {
    auto it = rows.find(id);
    if (it == rows.end()) return absl::NotFoundError("subscription not found");
    return it->second;
  }
  using SubscriptionRepository::List;
  absl::StatusOr<std::vector<Subscription>> List(const SubscriptionFilter& f, const Page* page,
                                                 int* total) override {
    std::vector<Subscription> out;
    for (auto& [id, s] : rows) {
      if (f.namespace_id != 0 && s.namespace_id != f.namespace_id) continue;
      if (f.notification_match && !LabelsContain(*f.notification_match, s.match)) continue;
      if (!LabelsContain(s.match, f.match)) continue;
      bool meta = true;
      for (const auto& [k, v] : f.metadata) {
        meta = meta && s.metadata.is_object() && s.metadata.contains(k) && s.metadata[k] == v;
      }
      if (!meta) continue;
      if (f.receiver_id != 0 || !f.receiver_labels.empty()) {
        bool any = false;
        for (const auto& r : s.receivers) {
          any = any || ((f.receiver_id == 0 || r.id == f.receiver_id) &&
                        LabelsContain(r.labels, f.receiver_labels));
        }
        if (!any) continue;
      }
      out.push_back(s);
    }
    return Paged(std::move(out), page, total);
  }
  absl::Status Update(const Subscription& s, absl::string_view) override {
    rows[s.id] = s;
    return absl::OkStatus();
  }
  absl::Status Delete(uint64_t id, absl::string_view) override {
    rows.erase(id);
    return absl::OkStatus();
  }
  std::map<uint64_t, Subscription> rows;
  uint64_t next_ = 0;
};

class FakeTemplateRepository : public TemplateRepository {
 public:
  absl::Status Upsert(const Template& t, absl::string_view) override {
    rows[t.name] = t;
    return absl::OkStatus();
  }
  absl::StatusOr<Template> Get(absl::string_view name) override {
    auto it = rows.find(std::string(name));
    if (it == rows.end()) return absl::NotFoundError("template not found");
    return it->second;
  }
  absl::StatusOr<std::vector<Template>> List(absl::string_view) override {
    std::vector<Template> out;
    for (auto& [n, t] : rows) out.push_back(t);
    return out;
  }
  absl::Status Delete(absl::string_view name, absl::string_view) override {
    rows.erase(std::string(name));
    return absl::OkStatus();
  }
  std::map<std::string, Template> rows;
};

// Queue semantics like the store: claim = enqueued & due → pending, try+1.
class FakeNotificationRepository : public NotificationRepository {
 public:
  absl::StatusOr<uint64_t> Create(const Notification& n, const std::vector<Delivery>& ds,
                                  int max_tries, absl::Time expire_at) override {
    if (!n.idempotency_key.empty() && keys.count(n.idempotency_key)) return keys[n.idempotency_key];
    Notification c = n;
    c.id = ++next_n;
    notifications[c.id] = c;
    if (!n.idempotency_key.empty()) keys[n.idempotency_key] = c.id;
    for (const Delivery& d : ds) {
      Row row;
      row.m.id = ++next_m;
      row.m.notification_id = c.id;
      row.m.receiver_id = d.receiver_id;
      row.m.receiver_type = d.receiver_type;
      row.m.status = kEnqueued;
      row.m.max_tries = max_tries;
      row.m.expire_at = expire_at;
      row.m.next_attempt_at = absl::Now();
      row.override_config = d.config_override;
      messages[row.m.id] = row;
    }
    return c.id;
  }
  absl::StatusOr<uint64_t> FindByIdempotencyKey(absl::string_view key) override {
    auto it = keys.find(std::string(key));
    return it == keys.end() ? 0 : it->second;
  }
  absl::StatusOr<std::vector<Notification>> ListNotifications(const NotificationFilter& f,
                                                             int limit) override {
    std::vector<Notification> out;
    for (auto it = notifications.rbegin(); it != notifications.rend(); ++it) {
      const Notification& n = it->second;
      if (!f.created_by.empty() && n.created_by != f.created_by) continue;
      if (!f.template_name.empty() && n.template_name != f.template_name) continue;
      if (!f.source.empty() && n.source != f.source) continue;
      if (!LabelsContain(n.labels, f.labels)) continue;
      if (static_cast<int>(out.size()) >= limit) break;
      out.push_back(n);
    }
    return out;
  }
  absl::StatusOr<std::string> GetCreator(uint64_t id) override {
    if (!notifications.count(id)) return absl::NotFoundError("notification not found");
    return notifications[id].created_by;
  }
  absl::StatusOr<std::vector<Message>> ListMessages(uint64_t id) override {
    if (!notifications.count(id)) return absl::NotFoundError("notification not found");
    std::vector<Message> out;
    for (auto& [mid, row] : messages) {
      if (row.m.notification_id == id) out.push_back(row.m);
    }
    return out;
  }
  absl::StatusOr<int> ExpireDue(absl::Time now) override {
    int n = 0;
    for (auto& [id, row] : messages) {
      if (row.m.status == kEnqueued && row.m.expire_at < now) {
        row.m.status = kExpired;
        ++n;
      }
    }
    return n;
  }
  absl::StatusOr<std::vector<ClaimedMessage>> Claim(int limit, absl::Duration) override {
    std::vector<ClaimedMessage> out;
    for (auto& [id, row] : messages) {
      if (static_cast<int>(out.size()) >= limit) break;
      if (row.m.status != kEnqueued || row.m.next_attempt_at > absl::Now()) continue;
      row.m.status = kPending;
      row.m.try_count++;
      row.lease = absl::StrCat("lease-", ++next_lease);
      ClaimedMessage c;
      c.message = row.m;
      c.lease = row.lease;
      auto r = receivers->Get(row.m.receiver_id);
      c.receiver_exists = r.ok();
      if (r.ok()) {
        c.receiver_config = r->configurations;
        c.parent_id = r->parent_id;
        auto p = r->parent_id != 0 ? receivers->Get(r->parent_id)
                                   : absl::StatusOr<Receiver>(absl::NotFoundError(""));
        if (p.ok()) {
          c.parent_type = p->type;
          c.parent_config = p->configurations;
        }
      }
      c.config_override = row.override_config;
      const Notification& n = notifications[row.m.notification_id];
      c.template_name = n.template_name;
      c.data = n.data;
      if (templates != nullptr) {
        auto t = templates->Get(n.template_name);
        if (t.ok()) c.user_template = *t;
      }
      out.push_back(c);
    }
    return out;
  }
  absl::Status MarkPublished(uint64_t id, absl::string_view lease) override {
    if (!Holds(id, lease)) return Lost(id);
    messages[id].m.status = kPublished;
    messages[id].m.updated_at = absl::Now();
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> DeletePublished(absl::Time before) override {
    int64_t n = 0;
    for (auto it = messages.begin(); it != messages.end();) {
      if (it->second.m.status == kPublished && it->second.m.updated_at < before) {
        it = messages.erase(it);
        ++n;
      } else {
        ++it;
      }
    }
    return n;
  }
  absl::Status MarkFailed(uint64_t id, absl::string_view lease, absl::string_view e) override {
    if (!Holds(id, lease)) return Lost(id);
    messages[id].m.status = kFailed;
    messages[id].m.last_error = std::string(e);
    return absl::OkStatus();
  }
  absl::Status MarkRetry(uint64_t id, absl::string_view lease, absl::string_view e,
                         absl::Time next) override {
    if (!Holds(id, lease)) return Lost(id);
    messages[id].m.status = kEnqueued;
    messages[id].m.last_error = std::string(e);
    messages[id].m.next_attempt_at = next;
    return absl::OkStatus();
  }
  absl::Status Release(uint64_t id, absl::string_view lease) override {
    if (!Holds(id, lease)) return Lost(id);
    messages[id].m.status = kEnqueued;
    messages[id].m.try_count--;
    return absl::OkStatus();
  }
  // Like the store: only the current claim records an outcome (and ends it).
  bool Holds(uint64_t id, absl::string_view lease) {
    Row& row = messages[id];
    if (row.m.status != kPending || row.lease.empty() || row.lease != lease) return false;
    row.lease.clear();
    return true;
  }
  static absl::Status Lost(uint64_t id) {
    return absl::AbortedError(absl::StrCat("message ", id, ": the lease was lost"));
  }
  struct Row {
    Message m;
    nlohmann::json override_config;
    std::string lease;  // the current claim's token; "" when not claimed
  };
  ReceiverRepository* receivers = nullptr;
  TemplateRepository* templates = nullptr;
  std::map<uint64_t, Notification> notifications;
  std::map<uint64_t, Row> messages;
  std::map<std::string, uint64_t> keys;
  uint64_t next_n = 0, next_m = 0, next_lease = 0;
};

class FakeAlertRepository : public AlertRepository {
 public:
  absl::Status Insert(const std::vector<Alert>& a, std::vector<uint64_t>* ids = nullptr) override {
    for (Alert x : a) {
      x.id = rows.size() + 1;
      if (ids != nullptr) ids->push_back(x.id);
      rows.push_back(std::move(x));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<Alert>> List(const AlertFilter&, const Page& page,
                                          int* total) override {
    return Paged(rows, &page, total);
  }
  std::vector<Alert> rows;
};

// Silences in memory, ids "s1", "s2", ...
class FakeSilenceRepository : public SilenceRepository {
 public:
  absl::StatusOr<Silence> Create(const Silence& s) override {
    Silence c = s;
    c.id = "s" + std::to_string(rows.size() + 1);
    c.created_at = absl::Now();
    rows.push_back(c);
    return c;
  }
  absl::StatusOr<std::vector<Silence>> List(const SilenceFilter& f) override {
    std::vector<Silence> out;
    for (const Silence& s : rows) {
      if (!f.include_expired && s.deleted_at) continue;
      if (f.namespace_id != 0 && s.namespace_id != f.namespace_id) continue;
      if (f.subscription_id != 0 && s.target_id != f.subscription_id) continue;
      out.push_back(s);
    }
    return out;
  }
  absl::StatusOr<Silence> Get(absl::string_view id) override {
    for (const Silence& s : rows) {
      if (s.id == id) return s;
    }
    return absl::NotFoundError("silence not found");
  }
  absl::Status Expire(absl::string_view id) override {
    for (Silence& s : rows) {
      if (s.id != id) continue;
      if (!s.deleted_at) s.deleted_at = absl::Now();
      return absl::OkStatus();
    }
    return absl::NotFoundError("silence not found");
  }
  std::vector<Silence> rows;
};

// A receiver type answering from a script (then OK), recording what it got.
// Config: url (required, a string; its destination), token (a secret).
class ScriptedPlugin : public ReceiverPlugin {
 public:
  absl::Status ValidateConfig(const nlohmann::json& config) const override {
    if (!config.is_object() || !config.contains("url") || !config["url"].is_string()) {
      return absl::InvalidArgumentError("configurations.url: is required (a string)");
    }
    if (config["url"].get<std::string>().rfind("gopher:", 0) == 0) {
      return absl::InvalidArgumentError("configurations.url: must be http(s)");
    }
    return absl::OkStatus();
  }
  std::vector<std::string> SecretKeys() const override { return {"token"}; }
  std::vector<std::string> DestinationKeys() const override { return {"url"}; }
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override {
    sent.push_back({config, payload});
    if (script.empty()) return absl::OkStatus();
    absl::Status st = script.front();
    script.pop_front();
    return st;
  }
  std::deque<absl::Status> script;
  std::vector<std::pair<nlohmann::json, nlohmann::json>> sent;
};

// In-memory AlertingRepository with the store's upsert-by-name semantics.
class FakeAlertingRepository : public AlertingRepository {
 public:
  absl::StatusOr<uint64_t> CreateProvider(const AlertProvider& p, const std::string& c) override {
    AlertProvider s = p;
    s.id = ++next_;
    providers[s.id] = s;
    creds["p" + std::to_string(s.id)] = c;
    return s.id;
  }
  absl::StatusOr<AlertProvider> GetProvider(uint64_t id, std::string* c) override {
    if (!providers.count(id)) return absl::NotFoundError("provider");
    if (c) *c = creds["p" + std::to_string(id)];
    return providers[id];
  }
  absl::StatusOr<std::vector<AlertProvider>> ListProviders(absl::string_view,
                                                           absl::string_view type) override {
    std::vector<AlertProvider> out;
    for (auto& [id, p] : providers) {
      if (type.empty() || p.type == type) out.push_back(p);
    }
    return out;
  }
  absl::Status UpdateProvider(const AlertProvider& p, const std::string& c) override {
    providers[p.id] = p;
    creds["p" + std::to_string(p.id)] = c;
    return absl::OkStatus();
  }
  absl::Status DeleteProvider(uint64_t id) override {
    providers.erase(id);
    return absl::OkStatus();
  }
  absl::StatusOr<uint64_t> CreateNamespace(const AlertNamespace& n, const std::string& c) override {
    AlertNamespace s = n;
    s.id = ++next_;
    namespaces[s.id] = s;
    creds["n" + std::to_string(s.id)] = c;
    return s.id;
  }
  absl::StatusOr<AlertNamespace> GetNamespace(uint64_t id, std::string* c) override {
    if (!namespaces.count(id)) return absl::NotFoundError("namespace");
    if (c) *c = creds["n" + std::to_string(id)];
    return namespaces[id];
  }
  absl::StatusOr<std::vector<AlertNamespace>> ListNamespaces(uint64_t pid) override {
    std::vector<AlertNamespace> out;
    for (auto& [id, n] : namespaces) {
      if (pid == 0 || n.provider_id == pid) out.push_back(n);
    }
    return out;
  }
  absl::Status UpdateNamespace(const AlertNamespace& n, const std::string& c) override {
    namespaces[n.id] = n;
    creds["n" + std::to_string(n.id)] = c;
    return absl::OkStatus();
  }
  absl::Status DeleteNamespace(uint64_t id) override {
    namespaces.erase(id);
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<AlertRule>> ListRules(const AlertRuleFilter& f) override {
    std::vector<AlertRule> out;
    for (auto& [name, r] : rules) {
      if (f.namespace_id == 0 || r.namespace_id == f.namespace_id) out.push_back(r);
    }
    return out;
  }
  absl::StatusOr<AlertRule> UpsertRule(const AlertRule& r) override {
    AlertRule s = r;
    if (rules.count(r.name)) s.id = rules[r.name].id;
    else s.id = ++next_;
    rules[r.name] = s;
    return s;
  }
  std::map<uint64_t, AlertProvider> providers;
  std::map<uint64_t, AlertNamespace> namespaces;
  std::map<std::string, AlertRule> rules;
  std::map<std::string, std::string> creds;
  uint64_t next_ = 0;
};

}  // namespace sluice::notification::testing

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_FAKES_H_
