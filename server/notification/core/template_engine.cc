#include "server/notification/core/template_engine.h"

#include <kainjow/mustache.hpp>

#include "absl/strings/str_cat.h"

namespace sluice::notification {
namespace {

using kainjow::mustache::data;
using kainjow::mustache::mustache;

data ToData(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      data d{data::type::object};
      for (auto it = j.begin(); it != j.end(); ++it) d.set(it.key(), ToData(it.value()));
      return d;
    }
    case nlohmann::json::value_t::array: {
      data list{data::type::list};
      for (size_t i = 0; i < j.size(); ++i) {
        data item = ToData(j[i]);
        if (j[i].is_object()) {
          item.set("_index", std::to_string(i));
          item.set("_first", data(i == 0));
          item.set("_last", data(i + 1 == j.size()));
        }
        list.push_back(item);
      }
      return list;
    }
    case nlohmann::json::value_t::string:
      return data(j.get<std::string>());
    case nlohmann::json::value_t::boolean:
      return data(j.get<bool>());
    case nlohmann::json::value_t::null:
      return data(false);
    default:
      return data(j.dump());
  }
}

// Built-in bodies. Alert templates see the alert group data built by
// AlertService (status, firing, group_key, alerts[], common_labels, …).
constexpr char kDefaultBody[] = R"({{{_json}}})";

constexpr char kSlackAlertBody[] = R"({
  "text": "[{{status_upper}}{{#firing}}:{{num_firing}}{{/firing}}] {{title}}",
  "attachments": [{{#alerts}}{{^_first}},{{/_first}}
    {"color": "{{#firing}}danger{{/firing}}{{^firing}}good{{/firing}}",
     "title": "[{{status}}] {{labels.alertname}}",
     "title_link": "{{generator_url}}",
     "text": "{{annotations.summary}}{{#annotations.description}}\n{{annotations.description}}{{/annotations.description}}",
     "fields": [
       {"title": "Severity", "value": "{{labels.severity}}", "short": true}
       {{#annotations.runbook_url}},{"title": "Runbook", "value": "{{annotations.runbook_url}}", "short": false}{{/annotations.runbook_url}}
       {{#annotations.runbook}},{"title": "Runbook", "value": "{{annotations.runbook}}", "short": false}{{/annotations.runbook}}
       {{#annotations.dashboard}},{"title": "Dashboard", "value": "{{annotations.dashboard}}", "short": false}{{/annotations.dashboard}}
     ]}{{/alerts}}
  ]
})";

constexpr char kPagerDutyAlertBody[] = R"({
  "event_action": "{{#firing}}trigger{{/firing}}{{^firing}}resolve{{/firing}}",
  "dedup_key": "{{group_key}}",
  "payload": {
    "summary": "{{title}}",
    "source": "{{source}}",
    "severity": "{{pagerduty_severity}}",
    "custom_details": {{{_payload_json}}}
  }{{#external_url}},
  "client": "Alertmanager",
  "client_url": "{{external_url}}"{{/external_url}}
})";

constexpr char kRawAlertBody[] = R"({{{_payload_json}}})";

std::vector<Template> MakeBuiltins() {
  auto make = [](const char* name, const char* body, std::vector<std::string> tags) {
    Template t;
    t.name = name;
    t.body = body;
    t.tags = std::move(tags);
    t.builtin = true;
    t.created_at = t.updated_at = absl::UnixEpoch();
    return t;
  };
  return {
      make("system-alert-file", kRawAlertBody, {"system", "alert", "file"}),
      make("system-alert-http", kRawAlertBody, {"system", "alert", "http"}),
      make("system-alert-pagerduty", kPagerDutyAlertBody, {"system", "alert", "pagerduty"}),
      make("system-alert-slack", kSlackAlertBody, {"system", "alert", "slack"}),
      make(kDefaultTemplate, kDefaultBody, {"system", "default"}),
  };
}

}  // namespace

std::string JsonEscape(absl::string_view s) {
  std::string quoted = nlohmann::json(std::string(s)).dump();
  return quoted.substr(1, quoted.size() - 2);
}

absl::Status ValidateTemplateBody(absl::string_view body) {
  mustache tmpl{std::string(body)};
  if (!tmpl.is_valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("template body does not parse: ", tmpl.error_message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RenderTemplateText(const Template& t, const nlohmann::json& data_in,
                                               absl::string_view receiver_type) {
  mustache tmpl{t.body};
  if (!tmpl.is_valid()) {
    return absl::InvalidArgumentError(absl::StrCat("template \"", t.name,
                                                   "\" does not parse: ", tmpl.error_message()));
  }
  tmpl.set_custom_escape([](const std::string& s) { return JsonEscape(s); });
  nlohmann::json full = data_in.is_object() ? data_in : nlohmann::json::object();
  for (const TemplateVariable& v : t.variables) {
    if (!full.contains(v.name)) full[v.name] = v.default_value;
  }
  data ctx = ToData(full);
  ctx.set("_json", full.dump());
  data receiver{data::type::object};
  receiver.set("type", std::string(receiver_type));
  if (!receiver_type.empty()) receiver.set(std::string(receiver_type), data(true));
  ctx.set("receiver", receiver);
  std::string out = tmpl.render(ctx);
  if (!tmpl.is_valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("template \"", t.name, "\" failed to render: ", tmpl.error_message()));
  }
  return out;
}

absl::StatusOr<nlohmann::json> RenderPayload(const Template& t, const nlohmann::json& data,
                                             absl::string_view receiver_type) {
  auto text = RenderTemplateText(t, data, receiver_type);
  if (!text.ok()) return text.status();
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    return absl::InvalidArgumentError(absl::StrCat("template \"", t.name,
                                                   "\" rendered invalid JSON: ", e.what()));
  }
}

const std::vector<Template>& BuiltinTemplates() {
  static const std::vector<Template>* builtins = new std::vector<Template>(MakeBuiltins());
  return *builtins;
}

const Template* FindBuiltinTemplate(absl::string_view name) {
  for (const Template& t : BuiltinTemplates()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string ResolveTemplateName(absl::string_view name, absl::string_view receiver_type) {
  if (name == kAlertTemplate) return absl::StrCat(kAlertTemplate, "-", receiver_type);
  return std::string(name);
}

}  // namespace sluice::notification
