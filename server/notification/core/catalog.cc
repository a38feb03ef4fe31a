#include "server/notification/core/catalog.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "server/notification/core/go_template.h"
#include "server/notification/core/labels.h"
#include "server/notification/core/notify.h"
#include "server/notification/core/template_engine.h"

namespace sluice::notification {

// ---- SecretCodec ----

std::vector<std::string> SecretCodec::Keys(absl::string_view type) const {
  auto it = plugins_->find(std::string(type));
  return it == plugins_->end() ? std::vector<std::string>{} : it->second->SecretKeys();
}

std::string ReceiverPlace(uint64_t id) { return absl::StrCat("receivers/", id); }

absl::Status SecretCodec::RejectCiphertexts(absl::string_view type, const nlohmann::json& config,
                                            absl::string_view field_prefix) const {
  if (!config.is_object()) return absl::OkStatus();
  for (const std::string& k : Keys(type)) {
    if (!config.contains(k) || !config[k].is_string()) continue;
    if (auto st = Crypter::RejectCiphertext(absl::StrCat(field_prefix, k),
                                            config[k].get_ref<const std::string&>());
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> SecretCodec::Seal(absl::string_view type, nlohmann::json config,
                                                 absl::string_view place) const {
  for (const std::string& k : Keys(type)) {
    if (!config.contains(k) || !config[k].is_string()) continue;
    std::string v = config[k].get<std::string>();
    if (v.empty() || Crypter::IsEncrypted(v)) continue;  // kept: sealed here before
    auto sealed = crypter_->Encrypt(v, absl::StrCat(place, "/", k));
    if (!sealed.ok()) return sealed.status();
    config[k] = *sealed;
  }
  return config;
}

absl::StatusOr<nlohmann::json> SecretCodec::Open(absl::string_view type, nlohmann::json config,
                                                 absl::string_view place) const {
  for (const std::string& k : Keys(type)) {
    if (!config.contains(k) || !config[k].is_string()) continue;
    std::string v = config[k].get<std::string>();
    if (!Crypter::IsEncrypted(v)) continue;
    auto plain = crypter_->Decrypt(v, absl::StrCat(place, "/", k));
    if (!plain.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot decrypt configuration key \"", k, "\": ", plain.status().message()));
    }
    config[k] = *plain;
  }
  return config;
}

nlohmann::json SecretCodec::Mask(absl::string_view type, nlohmann::json config) const {
  for (const std::string& k : Keys(type)) {
    if (config.contains(k)) config[k] = kMaskedSecret;
  }
  return config;
}

nlohmann::json SecretCodec::KeepMasked(absl::string_view type, nlohmann::json config,
                                       const nlohmann::json& stored) const {
  for (const std::string& k : Keys(type)) {
    if (config.contains(k) && config[k] == kMaskedSecret && stored.contains(k)) {
      config[k] = stored[k];
    }
  }
  return config;
}

std::string SecretCodec::Redact(absl::string_view type, const nlohmann::json& opened,
                                absl::string_view message) const {
  std::string out(message);
  if (!opened.is_object()) return out;
  for (const std::string& k : Keys(type)) {
    if (!opened.contains(k) || !opened[k].is_string()) continue;
    const std::string& v = opened[k].get_ref<const std::string&>();
    if (v.size() >= 4 && v != kMaskedSecret) absl::StrReplaceAll({{v, kMaskedSecret}}, &out);
  }
  return out;
}

nlohmann::json MergeOverride(nlohmann::json base, const nlohmann::json& override) {
  if (!base.is_object()) base = nlohmann::json::object();
  if (override.is_object()) {
    for (auto it = override.begin(); it != override.end(); ++it) base[it.key()] = it.value();
  }
  return base;
}

absl::Status OverrideKeepsDestination(const ReceiverPlugin& plugin, absl::string_view type,
                                      const nlohmann::json& base, const nlohmann::json& override,
                                      absl::string_view field_prefix) {
  if (plugin.SecretKeys().empty() || !override.is_object()) return absl::OkStatus();
  for (const std::string& k : plugin.DestinationKeys()) {
    if (!override.contains(k) || override[k] == kMaskedSecret) continue;
    if (base.is_object() && base.contains(k) && base[k] == override[k]) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        field_prefix, k, ": a subscription cannot change where a \"", type,
        "\" receiver sends (it holds secrets); change the receiver itself"));
  }
  return absl::OkStatus();
}

namespace {

// The destination keys of `plugin` whose value in `request` differs from
// `stored` (decrypted); "*****" means unchanged.
std::vector<std::string> ChangedDestinations(const ReceiverPlugin& plugin,
                                             const nlohmann::json& stored,
                                             const nlohmann::json& request) {
  std::vector<std::string> changed;
  for (const std::string& k : plugin.DestinationKeys()) {
    bool now = request.is_object() && request.contains(k);
    bool before = stored.is_object() && stored.contains(k);
    if (now && request[k] == kMaskedSecret) continue;
    if (now != before || (now && request[k] != stored[k])) changed.push_back(k);
  }
  return changed;
}

}  // namespace

// ---- ReceiverService ----

absl::Status ReceiverService::Validate(const Receiver& r) const {
  if (!ValidName(r.name, "_.-")) {
    return absl::InvalidArgumentError(
        absl::StrCat("name: \"", r.name, "\" must match ^[A-Za-z0-9_.-]+$"));
  }
  auto it = plugins_->find(r.type);
  if (it == plugins_->end()) {
    std::vector<std::string> known;
    for (const auto& [name, _] : *plugins_) known.push_back(name);
    return absl::InvalidArgumentError(absl::StrCat("type: unknown receiver type \"", r.type,
                                                   "\" (known: ", absl::StrJoin(known, ", "), ")"));
  }
  for (const auto& [k, v] : r.labels) {
    if (k == "id" || k == "type") {
      return absl::InvalidArgumentError(
          absl::StrCat("labels: \"", k, "\" is reserved (set implicitly)"));
    }
  }
  if (auto st = ValidateAllowedSenders(r.allowed_senders, "allowed_senders"); !st.ok()) return st;
  if (!r.configurations.is_object()) {
    return absl::InvalidArgumentError("configurations: must be an object");
  }
  return it->second->ValidateConfig(r.configurations);
}

Receiver ReceiverService::Present(Receiver r) const {
  r.configurations = codec_->Mask(r.type, std::move(r.configurations));
  r.labels = EffectiveLabels(r);
  return r;
}

absl::Status ReceiverService::Prepare(Receiver* r) const {
  auto it = plugins_->find(r->type);
  if (it == plugins_->end() || !r->configurations.is_object()) return absl::OkStatus();
  if (auto st = codec_->RejectCiphertexts(r->type, r->configurations, "configurations."); !st.ok()) {
    return st;
  }
  auto prepared = it->second->PrepareConfig(r->configurations);
  if (!prepared.ok()) return prepared.status();
  r->configurations = *std::move(prepared);
  return absl::OkStatus();
}

absl::Status ReceiverService::ValidateParent(const Receiver& r) const {
  auto it = plugins_->find(r.type);
  if (it == plugins_->end()) return absl::OkStatus();  // Validate names it
  std::string want = it->second->ParentType();
  if (want.empty()) {
    if (r.parent_id == 0) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("parent_id: type ", r.type, " should not have a parent receiver"));
  }
  if (r.parent_id == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("parent_id: type ", r.type, " needs a parent receiver (of type ", want, ")"));
  }
  if (r.parent_id == r.id) {
    return absl::InvalidArgumentError("parent_id: a receiver cannot be its own parent");
  }
  auto parent = repo_->Get(r.parent_id);
  if (!parent.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("parent_id: receiver ", r.parent_id, " not found"));
  }
  if (parent->type != want) {
    return absl::InvalidArgumentError(absl::StrCat("parent_id: the parent of ", r.type,
                                                   " should be of type ", want, ", not ",
                                                   parent->type));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ReceiverService::Create(Receiver r, absl::string_view actor) {
  if (auto st = Prepare(&r); !st.ok()) return st;
  if (auto st = Validate(r); !st.ok()) return st;
  if (auto st = ValidateParent(r); !st.ok()) return st;
  if (auto st = codec_->RejectCiphertexts(r.type, r.configurations, "configurations."); !st.ok()) {
    return st;
  }
  auto id = repo_->NextId();
  if (!id.ok()) return id.status();
  r.id = *id;
  auto sealed = codec_->Seal(r.type, r.configurations, ReceiverPlace(r.id));
  if (!sealed.ok()) return sealed.status();
  r.configurations = *sealed;
  return repo_->Create(r, actor);
}

absl::StatusOr<Receiver> ReceiverService::Get(uint64_t id) {
  auto r = repo_->Get(id);
  if (!r.ok()) return r.status();
  return Present(*std::move(r));
}

absl::StatusOr<std::vector<Receiver>> ReceiverService::List(const Labels& labels,
                                                            const Page& page, int* total) {
  auto list = repo_->List(labels, &page, total);
  if (!list.ok()) return list.status();
  for (Receiver& r : *list) r = Present(std::move(r));
  return list;
}

absl::Status ReceiverService::Update(Receiver r, absl::string_view actor) {
  auto current = repo_->Get(r.id);
  if (!current.ok()) return current.status();
  if (r.type.empty()) r.type = current->type;
  if (r.type != current->type) {
    return absl::InvalidArgumentError(absl::StrCat("type: is immutable (\"", current->type,
                                                   "\" cannot become \"", r.type, "\")"));
  }
  if (r.parent_id == 0) r.parent_id = current->parent_id;
  if (auto st = ValidateParent(r); !st.ok()) return st;
  if (auto st = Prepare(&r); !st.ok()) return st;
  if (auto it = plugins_->find(r.type); it != plugins_->end() && !it->second->SecretKeys().empty()) {
    // A new destination gets no stored secret: each must come again.
    auto stored = codec_->Open(r.type, current->configurations, ReceiverPlace(r.id));
    if (!stored.ok()) return stored.status();
    std::vector<std::string> changed = ChangedDestinations(*it->second, *stored, r.configurations);
    if (!changed.empty()) {
      for (const std::string& k : it->second->SecretKeys()) {
        if (std::find(changed.begin(), changed.end(), k) != changed.end()) continue;
        if (!stored->contains(k)) continue;
        const nlohmann::json* v = r.configurations.is_object() && r.configurations.contains(k)
                                      ? &r.configurations[k]
                                      : nullptr;
        if (v == nullptr || !v->is_string() || *v == kMaskedSecret) {
          return absl::InvalidArgumentError(
              absl::StrCat("configurations.", k, ": must be supplied again (in plain text) when "
                           "configurations.", changed[0], " changes"));
        }
      }
    }
  }
  r.configurations = codec_->KeepMasked(r.type, r.configurations, current->configurations);
  // Validate with the kept secrets decrypted, as they will be sent.
  Receiver check = r;
  auto opened = codec_->Open(r.type, r.configurations, ReceiverPlace(r.id));
  if (!opened.ok()) return opened.status();
  check.configurations = *std::move(opened);
  if (auto st = Validate(check); !st.ok()) {
    return absl::Status(st.code(), codec_->Redact(r.type, check.configurations, st.message()));
  }
  auto sealed = codec_->Seal(r.type, r.configurations, ReceiverPlace(r.id));
  if (!sealed.ok()) return sealed.status();
  r.configurations = *sealed;
  return repo_->Update(r, actor);
}

absl::Status ReceiverService::Delete(uint64_t id, absl::string_view actor) {
  return repo_->Delete(id, actor);
}

// ---- SubscriptionService ----

absl::Status SubscriptionService::Prepare(Subscription& s) {
  if (!ValidName(s.urn, "_-")) {
    return absl::InvalidArgumentError(
        absl::StrCat("urn: \"", s.urn, "\" must match ^[A-Za-z0-9_-]+$"));
  }
  if (s.receivers.empty()) return absl::InvalidArgumentError("receivers: at least one is required");
  if (s.metadata.is_null()) s.metadata = nlohmann::json::object();
  if (!s.metadata.is_object()) return absl::InvalidArgumentError("metadata: must be a JSON object");
  if (auto st = ValidateAllowedSenders(s.allowed_senders, "allowed_senders"); !st.ok()) return st;
  for (size_t i = 0; i < s.receivers.size(); ++i) {
    SubscriptionReceiver& sr = s.receivers[i];
    auto r = receivers_->Get(sr.id);
    if (absl::IsNotFound(r.status())) {
      return absl::NotFoundError(absl::StrCat("receivers[", i, "]: receiver ", sr.id, " not found"));
    }
    if (!r.ok()) return r.status();
    auto plugin = plugins_->find(r->type);
    if (plugin == plugins_->end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("receivers[", i, "]: receiver ", sr.id, " has an unknown type \"", r->type, "\""));
    }
    if (!sr.configuration.is_object()) sr.configuration = nlohmann::json::object();
    std::string field = absl::StrCat("receivers[", i, "].configuration.");
    // Secrets belong to the receiver: an override may not carry one (a
    // masked "*****" one just means the receiver's own, so it is dropped).
    for (const std::string& k : plugin->second->SecretKeys()) {
      if (!sr.configuration.contains(k)) continue;
      if (sr.configuration[k] == kMaskedSecret) {
        sr.configuration.erase(k);
        continue;
      }
      return absl::InvalidArgumentError(absl::StrCat(
          field, k, ": secrets belong to the receiver; create another receiver instead"));
    }
    auto base = codec_->Open(r->type, r->configurations, ReceiverPlace(r->id));
    if (!base.ok()) return base.status();
    if (auto st = OverrideKeepsDestination(*plugin->second, r->type, *base, sr.configuration, field);
        !st.ok()) {
      return st;
    }
    // The override is validated as it will be used: merged over the receiver.
    nlohmann::json merged = MergeOverride(*std::move(base), sr.configuration);
    if (auto st = plugin->second->ValidateConfig(merged); !st.ok()) {
      std::string msg = codec_->Redact(r->type, merged, st.message());
      if (absl::StartsWith(msg, "configurations.")) {
        msg = absl::StrCat(field, msg.substr(std::strlen("configurations.")));
      } else {
        msg = absl::StrCat("receivers[", i, "].configuration: ", msg);
      }
      return absl::Status(st.code(), msg);
    }
  }
  return absl::OkStatus();
}

Subscription SubscriptionService::Present(Subscription s) {
  for (SubscriptionReceiver& sr : s.receivers) {
    auto r = receivers_->Get(sr.id);
    if (r.ok()) sr.configuration = codec_->Mask(r->type, sr.configuration);
  }
  return s;
}

absl::StatusOr<uint64_t> SubscriptionService::Create(Subscription s, absl::string_view actor) {
  if (auto st = Prepare(s); !st.ok()) return st;
  return repo_->Create(s, actor);
}

absl::StatusOr<Subscription> SubscriptionService::Get(uint64_t id) {
  auto s = repo_->Get(id);
  if (!s.ok()) return s.status();
  return Present(*std::move(s));
}

absl::StatusOr<std::vector<Subscription>> SubscriptionService::List(uint64_t namespace_id,
                                                                    const Labels& match,
                                                                    const Page& page,
                                                                    int* total) {
  auto list = repo_->List(namespace_id, match.empty() ? nullptr : &match, &page, total);
  if (!list.ok()) return list.status();
  for (Subscription& s : *list) s = Present(std::move(s));
  return list;
}

absl::StatusOr<std::vector<Subscription>> SubscriptionService::List(
    const SubscriptionFilter& filter, const Page& page, int* total) {
  auto list = repo_->List(filter, &page, total);
  if (!list.ok()) return list.status();
  for (Subscription& s : *list) s = Present(std::move(s));
  return list;
}

namespace {

// The index of receiver `receiver_id` in `s`, or -1.
int FindReceiver(const Subscription& s, uint64_t receiver_id) {
  for (size_t i = 0; i < s.receivers.size(); ++i) {
    if (s.receivers[i].id == receiver_id) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

absl::Status SubscriptionService::AddReceiver(uint64_t subscription_id, uint64_t receiver_id,
                                              const Labels& labels, absl::string_view actor) {
  auto s = repo_->Get(subscription_id);
  if (!s.ok()) return s.status();
  if (FindReceiver(*s, receiver_id) >= 0) {
    return absl::AlreadyExistsError(absl::StrCat("receiver ", receiver_id,
                                                 " is already in subscription ", subscription_id));
  }
  SubscriptionReceiver sr;
  sr.id = receiver_id;
  sr.labels = labels;
  s->receivers.push_back(std::move(sr));
  return Update(*std::move(s), actor);
}

absl::Status SubscriptionService::UpdateReceiverLabels(uint64_t subscription_id,
                                                       uint64_t receiver_id, const Labels& labels,
                                                       absl::string_view actor) {
  auto s = repo_->Get(subscription_id);
  if (!s.ok()) return s.status();
  int i = FindReceiver(*s, receiver_id);
  if (i < 0) {
    return absl::NotFoundError(absl::StrCat("receiver ", receiver_id, " is not in subscription ",
                                            subscription_id));
  }
  s->receivers[i].labels = labels;
  s->receivers[i].updated_at = absl::Now();
  return Update(*std::move(s), actor);
}

absl::Status SubscriptionService::RemoveReceiver(uint64_t subscription_id, uint64_t receiver_id,
                                                 absl::string_view actor) {
  auto s = repo_->Get(subscription_id);
  if (!s.ok()) return s.status();
  int i = FindReceiver(*s, receiver_id);
  if (i < 0) {
    return absl::NotFoundError(absl::StrCat("receiver ", receiver_id, " is not in subscription ",
                                            subscription_id));
  }
  if (s->receivers.size() == 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "receiver ", receiver_id, " is the last receiver of subscription ", subscription_id,
        "; delete the subscription instead"));
  }
  s->receivers.erase(s->receivers.begin() + i);
  return Update(*std::move(s), actor);
}

absl::Status SubscriptionService::Update(Subscription s, absl::string_view actor) {
  if (auto st = Prepare(s); !st.ok()) return st;
  // A receiver relation that stays keeps its created_at, and its updated_at
  // unless its labels or override changed (Siren's relation times).
  auto stored = repo_->Get(s.id);
  if (stored.ok()) {
    for (SubscriptionReceiver& sr : s.receivers) {
      int i = FindReceiver(*stored, sr.id);
      if (i < 0 || sr.created_at != absl::UnixEpoch()) continue;
      const SubscriptionReceiver& old = stored->receivers[i];
      sr.created_at = old.created_at;
      bool same = old.labels == sr.labels && old.configuration == sr.configuration;
      if (sr.updated_at == absl::UnixEpoch()) sr.updated_at = same ? old.updated_at : absl::Now();
    }
  }
  return repo_->Update(s, actor);
}

absl::Status SubscriptionService::Delete(uint64_t id, absl::string_view actor) {
  return repo_->Delete(id, actor);
}

// ---- TemplateService ----

absl::Status TemplateService::Upsert(Template t, absl::string_view actor) {
  if (!ValidName(t.name, "_-")) {
    return absl::InvalidArgumentError(
        absl::StrCat("name: \"", t.name, "\" must match ^[A-Za-z0-9_-]+$"));
  }
  if (FindBuiltinTemplate(t.name) != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("template \"", t.name, "\" is built in and cannot be changed"));
  }
  if (t.body.empty()) return absl::InvalidArgumentError("body: is required");
  if (auto st = ValidateEngine(t.engine); !st.ok()) return st;
  if (t.engine.empty()) t.engine = kEngineMustache;
  if (t.engine == kEngineGo) {
    if (auto st = ValidateGoTemplateBody(t.body, t.variables); !st.ok()) return st;
  } else if (auto st = ValidateTemplateBody(t.body); !st.ok()) {
    return st;
  }
  for (size_t i = 0; i < t.variables.size(); ++i) {
    const TemplateVariable& v = t.variables[i];
    if (v.name.empty()) return absl::InvalidArgumentError("variables: every variable needs a name");
    // Siren's Variable: name and type are required (core/template/template.go).
    if (t.engine == kEngineGo && v.type.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("variables[", i, "].type: is required (", v.name, ")"));
    }
  }
  return repo_->Upsert(t, actor);
}

absl::StatusOr<Template> TemplateService::Get(absl::string_view name) {
  if (const Template* b = FindBuiltinTemplate(name)) return *b;
  return repo_->Get(name);
}

absl::StatusOr<std::vector<Template>> TemplateService::List(absl::string_view tag,
                                                            const Page& page, int* total) {
  auto stored = repo_->List(tag);
  if (!stored.ok()) return stored.status();
  std::vector<Template> out;
  for (const Template& b : BuiltinTemplates()) {
    if (tag.empty() || std::find(b.tags.begin(), b.tags.end(), tag) != b.tags.end()) {
      out.push_back(b);
    }
  }
  for (Template& t : *stored) out.push_back(std::move(t));
  std::sort(out.begin(), out.end(),
            [](const Template& a, const Template& b) { return a.name < b.name; });
  // Templates change only by notification admins, so they are few: paged
  // here, after merging the built-ins.
  if (total != nullptr) *total = static_cast<int>(out.size());
  std::vector<Template> paged;
  for (size_t i = page.offset; i < out.size() && paged.size() < static_cast<size_t>(page.size); ++i) {
    paged.push_back(std::move(out[i]));
  }
  return paged;
}

absl::Status TemplateService::Delete(absl::string_view name, absl::string_view actor) {
  if (FindBuiltinTemplate(name) != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("template \"", name, "\" is built in and cannot be deleted"));
  }
  return repo_->Delete(name, actor);
}

absl::StatusOr<std::string> TemplateService::Render(absl::string_view name,
                                                    const nlohmann::json& variables,
                                                    absl::string_view receiver_type,
                                                    const std::function<absl::Status(const Template&)>& authorize) {
  auto t = Get(name);
  if (!t.ok()) return t.status();
  if (auto st = authorize(*t); !st.ok()) return st;
  return RenderTemplateText(*t, variables, receiver_type);
}

}  // namespace sluice::notification
