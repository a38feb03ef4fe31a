#include "server/notification/core/silence.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/expr/expr.h"
#include "server/notification/core/labels.h"
#include "spdlog/spdlog.h"

namespace sluice::notification {
namespace {

bool IsRuleVariable(absl::string_view name) {
  for (const char* v : kSilenceRuleVariables) {
    if (name == v) return true;
  }
  return false;
}

// The rule of a subscription silence ("" = none).
std::string RuleOf(const Silence& s) {
  auto it = s.target_expression.find(kSilenceRuleKey);
  if (it == s.target_expression.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// A Matchers silence's target_expression as labels (validated: strings only).
Labels MatchersOf(const Silence& s) {
  Labels out;
  for (auto it = s.target_expression.begin(); it != s.target_expression.end(); ++it) {
    if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

nlohmann::json LabelsObject(const Labels& l) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : l) j[k] = v;
  return j;
}

// Evaluates a subscription silence's rule against one delivery; errors and
// non-bool results silence nothing (Siren returns the error instead and
// drops the whole dispatch, which would be worse than notifying).
bool RuleSilences(const Silence& s, const expr::Program& program, const SubscribedDelivery& route,
                  const nlohmann::json& labels) {
  nlohmann::json id = route.delivery.receiver_id;
  nlohmann::json type = route.delivery.receiver_type;
  nlohmann::json sub = route.subscription_id;
  expr::Environment env;
  env.BindJson("ID", &id)
      .BindJson("Type", &type)
      .BindJson("Configuration", &route.delivery.config_override)
      .BindJson("Labels", &labels)
      .BindJson("SubscriptionID", &sub);
  auto result = program.EvaluateBool(env);
  if (!result.ok()) {
    spdlog::warn("silence {}: rule \"{}\" failed on receiver {}: {}", s.id, program.source(),
                 route.delivery.receiver_id, result.status().ToString());
    return false;
  }
  return *result;
}

}  // namespace

absl::Status ValidateSilence(Silence& s) {
  if (absl::AsciiStrToLower(s.type) == "matchers") s.type = kSilenceTypeMatchers;
  if (!s.target_expression.is_object()) {
    return absl::InvalidArgumentError("target_expression: must be an object");
  }
  if (s.type == kSilenceTypeSubscription) {
    if (s.target_id == 0) {
      return absl::InvalidArgumentError(
          "target_id: is required (the subscription id) for type 'subscription'");
    }
    for (auto it = s.target_expression.begin(); it != s.target_expression.end(); ++it) {
      if (it.key() != kSilenceRuleKey) {
        return absl::InvalidArgumentError(absl::StrCat(
            "target_expression.", it.key(), ": a subscription silence takes only \"rule\""));
      }
      if (!it.value().is_string()) {
        return absl::InvalidArgumentError("target_expression.rule: must be a string");
      }
    }
    std::string rule = RuleOf(s);
    if (rule.empty()) return absl::OkStatus();
    auto program = expr::Program::Compile(rule);
    if (!program.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target_expression.rule: not in Sluice's expression dialect (a subset of "
          "expr-lang): ",
          program.status().message()));
    }
    for (const std::string& root : (*program)->RootIdentifiers()) {
      if (!IsRuleVariable(root)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "target_expression.rule: unknown variable '", root, "' (a rule may read ",
            absl::StrJoin(kSilenceRuleVariables, ", "), ")"));
      }
    }
    return absl::OkStatus();
  }
  if (s.type == kSilenceTypeMatchers) {
    if (s.target_expression.empty()) {
      return absl::InvalidArgumentError(
          "target_expression: must not be empty: the labels to silence for type 'Matchers'");
    }
    for (auto it = s.target_expression.begin(); it != s.target_expression.end(); ++it) {
      if (!it.value().is_string()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "target_expression.", it.key(), ": a label value must be a string"));
      }
    }
    if (s.target_id != 0) {
      return absl::InvalidArgumentError("target_id: only for type 'subscription'");
    }
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("type: unknown silence type '", s.type,
                                                 "', should be '", kSilenceTypeMatchers,
                                                 "' or '", kSilenceTypeSubscription, "'"));
}

SilenceOutcome ApplySilences(const std::vector<Silence>& silences, uint64_t namespace_id,
                             const Labels& labels, const std::vector<SubscribedDelivery>& routes) {
  SilenceOutcome out;
  std::vector<bool> silenced(routes.size(), false);
  std::set<std::string> used;
  bool all = false;
  nlohmann::json labels_json = LabelsObject(labels);
  for (const Silence& s : silences) {
    if (s.deleted_at.has_value()) continue;
    if (s.namespace_id != 0 && s.namespace_id != namespace_id) continue;
    if (s.type == kSilenceTypeMatchers) {
      Labels m = MatchersOf(s);
      if (m.empty() || !LabelsContain(labels, m)) continue;
      all = true;
      used.insert(s.id);
      std::fill(silenced.begin(), silenced.end(), true);
      continue;
    }
    if (s.type != kSilenceTypeSubscription) continue;
    std::string rule = RuleOf(s);
    std::shared_ptr<const expr::Program> program;
    if (!rule.empty()) {
      auto compiled = expr::Program::Compile(rule);
      if (!compiled.ok()) {
        spdlog::warn("silence {}: rule does not compile: {}", s.id, compiled.status().ToString());
        continue;
      }
      program = *std::move(compiled);
    }
    for (size_t i = 0; i < routes.size(); ++i) {
      if (routes[i].subscription_id != s.target_id) continue;
      if (program != nullptr && !RuleSilences(s, *program, routes[i], labels_json)) continue;
      silenced[i] = true;
      used.insert(s.id);
    }
  }
  bool has_silenced = all, has_open = false;
  std::set<std::pair<uint64_t, std::string>> seen;
  for (size_t i = 0; i < routes.size(); ++i) {
    if (silenced[i]) {
      has_silenced = true;
      continue;
    }
    has_open = true;
    const Delivery& d = routes[i].delivery;
    if (!seen.insert({d.receiver_id, d.config_override.dump()}).second) continue;
    out.deliveries.push_back(d);
  }
  if (has_silenced && !has_open) out.status = kSilenceStatusTotal;
  if (has_silenced && has_open) out.status = kSilenceStatusPartial;
  out.silence_ids.assign(used.begin(), used.end());
  return out;
}

absl::StatusOr<Silence> SilenceService::Create(Silence s, absl::string_view creator) {
  if (auto st = ValidateSilence(s); !st.ok()) return st;
  if (s.type == kSilenceTypeSubscription && subscriptions_ != nullptr) {
    auto sub = subscriptions_->Get(s.target_id);
    if (absl::IsNotFound(sub.status())) {
      return absl::NotFoundError(
          absl::StrCat("target_id: subscription ", s.target_id, " not found"));
    }
    if (!sub.ok()) return sub.status();
  }
  s.creator = std::string(creator);
  s.deleted_at.reset();
  return repo_->Create(s);
}

absl::StatusOr<Silence> SilenceService::Get(absl::string_view id) {
  if (id.empty()) return absl::InvalidArgumentError("id: is required");
  return repo_->Get(id);
}

absl::Status SilenceService::Expire(absl::string_view id) {
  if (id.empty()) return absl::InvalidArgumentError("id: is required");
  return repo_->Expire(id);
}

}  // namespace sluice::notification
