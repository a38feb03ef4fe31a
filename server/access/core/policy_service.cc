#include "server/access/core/policy_service.h"

#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/outbound.h"
#include "absl/time/clock.h"
#include "server/access/core/policy_rules.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

// The secret fields of a policy's IAM config by field name: the auth
// secrets, and every header value (an X-Api-Key is as secret as a token;
// review M9). Empty without IAM.
std::vector<std::pair<std::string, std::string*>> SecretFields(pb::Policy* policy) {
  std::vector<std::pair<std::string, std::string*>> out;
  if (!policy->has_iam()) return out;
  auto* config = policy->mutable_iam()->mutable_config();
  auto* auth = config->mutable_auth();
  out.push_back({"iam.config.auth.password", auth->mutable_password()});
  out.push_back({"iam.config.auth.value", auth->mutable_value()});
  out.push_back({"iam.config.auth.token", auth->mutable_token()});
  for (auto& [name, value] : *config->mutable_headers()) {
    out.push_back({"iam.config.headers." + name, &value});
  }
  return out;
}

// Where a policy secret lives (its ciphertext's AAD). Not the version: a
// kept ("*****") secret carries over to the next version.
std::string SecretContext(const std::string& policy_id, const std::string& field) {
  return absl::StrCat("policies/", policy_id, "/", field);
}

bool IsHeaderName(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

absl::Status ValidateStep(const pb::Step& step, int i) {
  std::string f = absl::StrCat("steps[", i, "]");
  if (step.name().empty()) return absl::InvalidArgumentError(f + ".name: required");
  if (!IsValidId(step.name())) {
    return absl::InvalidArgumentError(
        absl::StrCat(f, ".name: \"", step.name(), "\" must match ^[A-Za-z0-9_-]+$"));
  }
  if (!step.when().empty()) {
    if (auto st = CheckExpression(f + ".when", step.when()); !st.ok()) return st;
  }
  if (step.allow_self_approval() && step.dont_allow_self_approval()) {
    return absl::InvalidArgumentError(
        f + ".dont_allow_self_approval: contradicts allow_self_approval (set one)");
  }
  if (step.strategy() == "manual") {
    if (step.approvers().empty()) {
      return absl::InvalidArgumentError(f + ".approvers: required for strategy \"manual\"");
    }
    for (int j = 0; j < step.approvers_size(); ++j) {
      const std::string& a = step.approvers(j);
      if (IsEmailAddress(a)) continue;
      if (auto st = CheckExpression(absl::StrCat(f, ".approvers[", j, "]"), a); !st.ok()) {
        return st;
      }
    }
  } else if (step.strategy() == "auto") {
    if (step.approve_if().empty()) {
      return absl::InvalidArgumentError(f + ".approve_if: required for strategy \"auto\"");
    }
    if (auto st = CheckExpression(f + ".approve_if", step.approve_if()); !st.ok()) return st;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        f, ".strategy: \"", step.strategy(), "\" is not one of \"manual\", \"auto\""));
  }
  return absl::OkStatus();
}

// Guardian's Question: a key usable in details.__policy_questions, unique,
// with its text.
absl::Status ValidateQuestions(const pb::PolicyAppealConfig& appeal) {
  std::set<std::string> keys;
  for (int i = 0; i < appeal.questions_size(); ++i) {
    const auto& q = appeal.questions(i);
    std::string f = absl::StrCat("appeal.questions[", i, "]");
    if (!IsValidId(q.key())) {
      return absl::InvalidArgumentError(
          absl::StrCat(f, ".key: \"", q.key(), "\" must match ^[A-Za-z0-9_-]+$"));
    }
    if (!keys.insert(q.key()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(f, ".key: duplicate question key \"", q.key(), "\""));
    }
    if (q.question().empty()) return absl::InvalidArgumentError(f + ".question: required");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePolicy(const pb::Policy& policy) {
  if (!IsValidId(policy.id())) {
    return absl::InvalidArgumentError(
        absl::StrCat("id: \"", policy.id(), "\" must match ^[A-Za-z0-9_-]+$"));
  }
  std::set<std::string> names;
  for (int i = 0; i < policy.steps_size(); ++i) {
    if (auto st = ValidateStep(policy.steps(i), i); !st.ok()) return st;
    if (!names.insert(policy.steps(i).name()).second) {
      return absl::InvalidArgumentError(absl::StrCat("steps[", i, "].name: duplicate step name \"",
                                                     policy.steps(i).name(), "\""));
    }
  }
  for (int i = 0; i < policy.requirements_size(); ++i) {
    const auto& r = policy.requirements(i);
    std::string f = absl::StrCat("requirements[", i, "]");
    if (auto st = ValidateTrigger(r.on(), f + ".on"); !st.ok()) return st;
    if (r.appeals().empty()) return absl::InvalidArgumentError(f + ".appeals: required");
    if (!r.on_failure().empty() && r.on_failure() != "soft" && r.on_failure() != "hard") {
      return absl::InvalidArgumentError(absl::StrCat(f, ".on_failure: \"", r.on_failure(),
                                                     "\" is not one of \"soft\", \"hard\""));
    }
    for (int j = 0; j < r.appeals_size(); ++j) {
      const auto& a = r.appeals(j);
      std::string fa = absl::StrCat(f, ".appeals[", j, "]");
      if (a.role().empty()) return absl::InvalidArgumentError(fa + ".role: required");
      const auto& res = a.resource();
      if (res.id().empty() && (res.provider_type().empty() || res.provider_urn().empty() ||
                               res.type().empty() || res.urn().empty())) {
        return absl::InvalidArgumentError(
            fa + ".resource: need id, or provider_type, provider_urn, type and urn");
      }
      if (a.has_policy() && !IsValidId(a.policy().id())) {
        return absl::InvalidArgumentError(absl::StrCat(fa, ".policy.id: \"", a.policy().id(),
                                                       "\" must match ^[A-Za-z0-9_-]+$"));
      }
      if (!a.options().duration().empty()) {
        if (auto d = ParseDurationField(fa + ".options.duration", a.options().duration()); !d.ok()) {
          return d.status();
        }
      }
    }
  }
  if (policy.has_iam()) {
    const auto& iam = policy.iam();
    if (iam.provider() != "http") {
      return absl::InvalidArgumentError(
          absl::StrCat("iam.provider: \"", iam.provider(), "\" is not supported (want \"http\")"));
    }
    if (iam.config().url().empty()) return absl::InvalidArgumentError("iam.config.url: required");
    if (auto st = ValidateHttpUrl("iam.config.url", iam.config().url()); !st.ok()) return st;
    for (const auto& [name, value] : iam.config().headers()) {
      if (!IsHeaderName(name)) {
        return absl::InvalidArgumentError(
            absl::StrCat("iam.config.headers: \"", name, "\" is not a header name"));
      }
      for (char c : value) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          return absl::InvalidArgumentError(absl::StrCat(
              "iam.config.headers.", name, ": control characters (CR, LF, ...) are not allowed"));
        }
      }
    }
    const std::string& t = iam.config().auth().type();
    if (!t.empty() && t != "basic" && t != "api_key" && t != "bearer") {
      return absl::InvalidArgumentError(absl::StrCat(
          "iam.config.auth.type: \"", t, "\" is not one of \"basic\", \"api_key\", \"bearer\""));
    }
  }
  const auto& appeal = policy.appeal();
  if (auto st = ValidateQuestions(appeal); !st.ok()) return st;
  for (int i = 0; i < appeal.duration_options_size(); ++i) {
    if (auto d = ParseDurationField(absl::StrCat("appeal.duration_options[", i, "].value"),
                                    appeal.duration_options(i).value());
        !d.ok()) {
      return d.status();
    }
  }
  if (!appeal.allow_active_access_extension_in().empty()) {
    if (auto d = ParseDurationField("appeal.allow_active_access_extension_in",
                                    appeal.allow_active_access_extension_in());
        !d.ok()) {
      return d.status();
    }
  }
  return absl::OkStatus();
}

void MaskPolicySecrets(pb::Policy* policy) {
  for (auto& [field, s] : SecretFields(policy)) {
    if (!s->empty()) *s = kMaskedSecret;
  }
}

absl::Status PolicyService::EncryptSecrets(pb::Policy* policy, const pb::Policy* previous) const {
  if (!policy->has_iam()) return absl::OkStatus();
  pb::Policy prev;
  if (previous != nullptr) prev = *previous;
  std::map<std::string, std::string> kept;  // field → previous ciphertext
  for (auto& [field, s] : SecretFields(&prev)) kept[field] = *s;
  // Review C5: a new IAM URL never receives the previous secrets.
  bool moved = previous != nullptr && previous->has_iam() &&
               previous->iam().config().url() != policy->iam().config().url();
  for (auto& [field, s] : SecretFields(policy)) {
    if (s->empty()) continue;
    if (*s == kMaskedSecret) {
      if (moved) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ": must be supplied again when iam.config.url changes (a stored secret is "
                   "never sent to a new destination)"));
      }
      auto it = kept.find(field);
      if (it == kept.end() || it->second.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ": masked secret without a previous value"));
      }
      *s = it->second;  // still encrypted, for the same policy and field
      continue;
    }
    if (auto st = Crypter::RejectCiphertext(field, *s); !st.ok()) return st;
    auto enc = crypter_->Encrypt(*s, SecretContext(policy->id(), field));
    if (!enc.ok()) return enc.status();
    *s = *enc;
  }
  return absl::OkStatus();
}

absl::StatusOr<pb::Policy> PolicyService::Create(pb::Policy policy, const std::string& actor,
                                                 bool dry_run) {
  if (auto st = ValidatePolicy(policy); !st.ok()) return st;
  policy.set_version(1);
  policy.set_created_by(actor);
  auto now = ToTimestamp(absl::Now());
  *policy.mutable_created_at() = now;
  *policy.mutable_updated_at() = now;
  if (auto st = EncryptSecrets(&policy, nullptr); !st.ok()) return st;
  if (dry_run) {
    // What the insert would refuse, without inserting (Guardian's dry run
    // skips only the write).
    auto existing = repo_->Get(policy.id(), 0);
    if (existing.ok()) {
      return absl::AlreadyExistsError(absl::StrCat("policy \"", policy.id(), "\" already exists"));
    }
    if (!absl::IsNotFound(existing.status())) return existing.status();
    MaskPolicySecrets(&policy);
    return policy;
  }
  auto st = repo_->Insert(policy, {"policy.create", actor, {{"id", policy.id()}, {"version", 1}}});
  if (absl::IsAlreadyExists(st)) {
    return absl::AlreadyExistsError(absl::StrCat("policy \"", policy.id(), "\" already exists"));
  }
  if (!st.ok()) return st;
  MaskPolicySecrets(&policy);
  return policy;
}

absl::StatusOr<pb::Policy> PolicyService::Update(const std::string& id, pb::Policy policy,
                                                 const std::string& actor, bool dry_run) {
  auto latest = repo_->Get(id, 0);
  if (!latest.ok()) return latest.status();
  if (!policy.id().empty() && policy.id() != id) {
    return absl::InvalidArgumentError(
        absl::StrCat("id: body id \"", policy.id(), "\" differs from path id \"", id, "\""));
  }
  policy.set_id(id);
  if (auto st = ValidatePolicy(policy); !st.ok()) return st;
  policy.set_version(latest->version() + 1);
  policy.set_created_by(actor);
  *policy.mutable_created_at() = latest->created_at();
  *policy.mutable_updated_at() = ToTimestamp(absl::Now());
  if (auto st = EncryptSecrets(&policy, &*latest); !st.ok()) return st;
  if (dry_run) {
    MaskPolicySecrets(&policy);
    return policy;
  }
  auto st = repo_->Insert(
      policy, {"policy.update", actor, {{"id", id}, {"version", policy.version()}}});
  if (absl::IsAlreadyExists(st)) {
    return absl::AbortedError(absl::StrCat("policy \"", id, "\" was updated concurrently; retry"));
  }
  if (!st.ok()) return st;
  MaskPolicySecrets(&policy);
  return policy;
}

absl::StatusOr<pb::Policy> PolicyService::Get(const std::string& id, uint32_t version) {
  auto p = repo_->Get(id, version);
  if (!p.ok()) return p.status();
  MaskPolicySecrets(&*p);
  return p;
}

absl::StatusOr<std::vector<pb::Policy>> PolicyService::List(const Page& page, int64_t* total,
                                                            const std::vector<std::string>& ids) {
  auto ps = repo_->List(page, total, ids);
  if (!ps.ok()) return ps.status();
  for (auto& p : *ps) MaskPolicySecrets(&p);
  return ps;
}

absl::StatusOr<pb::Policy> PolicyService::GetDecrypted(const std::string& id, uint32_t version) {
  if (version > 0) {
    absl::MutexLock lock(&mu_);
    auto it = decrypted_.find({id, version});
    if (it != decrypted_.end()) return it->second;
  }
  auto p = repo_->Get(id, version);
  if (!p.ok()) return p.status();
  for (auto& [field, s] : SecretFields(&*p)) {
    if (s->empty()) continue;
    auto dec = crypter_->Decrypt(*s, SecretContext(p->id(), field));
    if (!dec.ok()) return dec.status();
    *s = *dec;
  }
  absl::MutexLock lock(&mu_);
  decrypted_[{id, p->version()}] = *p;
  return p;
}

}  // namespace sluice::access
