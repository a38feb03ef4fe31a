#include "server/notification/core/catalog.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/notification/core/labels.h"
#include "server/notification/core/template_engine.h"

namespace sluice::notification {

// ---- SecretCodec ----

std::vector<std::string> SecretCodec::Keys(absl::string_view type) const {
  auto it = plugins_->find(std::string(type));
  return it == plugins_->end() ? std::vector<std::string>{} : it->second->SecretKeys();
}

absl::StatusOr<nlohmann::json> SecretCodec::Seal(absl::string_view type,
                                                 nlohmann::json config) const {
  for (const std::string& k : Keys(type)) {
    if (!config.contains(k) || !config[k].is_string()) continue;
    std::string v = config[k].get<std::string>();
    if (v.empty() || Crypter::IsEncrypted(v)) continue;
    auto sealed = crypter_->Encrypt(v);
    if (!sealed.ok()) return sealed.status();
    config[k] = *sealed;
  }
  return config;
}

absl::StatusOr<nlohmann::json> SecretCodec::Open(absl::string_view type,
                                                 nlohmann::json config) const {
  for (const std::string& k : Keys(type)) {
    if (!config.contains(k) || !config[k].is_string()) continue;
    std::string v = config[k].get<std::string>();
    if (!Crypter::IsEncrypted(v)) continue;
    auto plain = crypter_->Decrypt(v);
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

absl::StatusOr<uint64_t> ReceiverService::Create(Receiver r, absl::string_view actor) {
  if (auto st = Validate(r); !st.ok()) return st;
  auto sealed = codec_->Seal(r.type, r.configurations);
  if (!sealed.ok()) return sealed.status();
  r.configurations = *sealed;
  return repo_->Create(r, actor);
}

absl::StatusOr<Receiver> ReceiverService::Get(uint64_t id) {
  auto r = repo_->Get(id);
  if (!r.ok()) return r.status();
  return Present(*std::move(r));
}

absl::StatusOr<std::vector<Receiver>> ReceiverService::List(const Labels& labels) {
  // id/type are implicit labels: filter on them here, the rest in the store.
  Labels stored = labels;
  stored.erase("id");
  stored.erase("type");
  auto all = repo_->List(stored);
  if (!all.ok()) return all.status();
  std::vector<Receiver> out;
  for (Receiver& r : *all) {
    Receiver p = Present(std::move(r));
    if (LabelsContain(p.labels, labels)) out.push_back(std::move(p));
  }
  return out;
}

absl::Status ReceiverService::Update(Receiver r, absl::string_view actor) {
  auto current = repo_->Get(r.id);
  if (!current.ok()) return current.status();
  if (r.type.empty()) r.type = current->type;
  if (r.type != current->type) {
    return absl::InvalidArgumentError(absl::StrCat("type: is immutable (\"", current->type,
                                                   "\" cannot become \"", r.type, "\")"));
  }
  r.configurations = codec_->KeepMasked(r.type, r.configurations, current->configurations);
  if (auto st = Validate(r); !st.ok()) return st;
  auto sealed = codec_->Seal(r.type, r.configurations);
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
  for (size_t i = 0; i < s.receivers.size(); ++i) {
    SubscriptionReceiver& sr = s.receivers[i];
    auto r = receivers_->Get(sr.id);
    if (absl::IsNotFound(r.status())) {
      return absl::NotFoundError(absl::StrCat("receivers[", i, "]: receiver ", sr.id, " not found"));
    }
    if (!r.ok()) return r.status();
    if (!sr.configuration.is_object()) sr.configuration = nlohmann::json::object();
    sr.configuration = codec_->KeepMasked(r->type, sr.configuration, r->configurations);
    auto sealed = codec_->Seal(r->type, sr.configuration);
    if (!sealed.ok()) return sealed.status();
    sr.configuration = *sealed;
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
                                                                    const Labels& match) {
  auto list = repo_->List(namespace_id, match.empty() ? nullptr : &match);
  if (!list.ok()) return list.status();
  for (Subscription& s : *list) s = Present(std::move(s));
  return list;
}

absl::Status SubscriptionService::Update(Subscription s, absl::string_view actor) {
  if (auto st = Prepare(s); !st.ok()) return st;
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
  if (auto st = ValidateTemplateBody(t.body); !st.ok()) return st;
  for (const TemplateVariable& v : t.variables) {
    if (v.name.empty()) return absl::InvalidArgumentError("variables: every variable needs a name");
  }
  return repo_->Upsert(t, actor);
}

absl::StatusOr<Template> TemplateService::Get(absl::string_view name) {
  if (const Template* b = FindBuiltinTemplate(name)) return *b;
  return repo_->Get(name);
}

absl::StatusOr<std::vector<Template>> TemplateService::List(absl::string_view tag) {
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
  return out;
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
                                                    absl::string_view receiver_type) {
  auto t = Get(name);
  if (!t.ok()) return t.status();
  return RenderTemplateText(*t, variables, receiver_type);
}

}  // namespace sluice::notification
