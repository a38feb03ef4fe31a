#include "server/notification/core/template_engine.h"

#include <kainjow/mustache.hpp>

#include <cctype>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "server/notification/core/go_template.h"
#include "server/notification/core/siren_templates/siren_templates.h"

namespace sluice::notification {
namespace {

using kainjow::mustache::data;
using kainjow::mustache::mustache;

// Thrown by BudgetContext; caught in RenderTemplateText.
struct RenderBudgetExceeded {};

// A kainjow context that bounds what rendering can produce. Each push (a
// section rendering its content once more, e.g. per list item) may emit up
// to the body's text again, and each variable looked up its string: nested
// sections over lists multiply, so a 64 KiB body could otherwise render
// gigabytes (or loop for hours) from a small data object.
class BudgetContext : public kainjow::mustache::context<std::string> {
 public:
  BudgetContext(const data* root, size_t per_push, size_t budget)
      : context(root), per_push_(per_push), budget_(budget) {}
  void push(const data* d) override {
    Charge(per_push_);
    context::push(d);
  }
  const data* get(const std::string& name) const override {
    const data* v = context::get(name);
    if (v != nullptr && v->is_string()) Charge(v->string_value().size());
    return v;
  }

 private:
  void Charge(size_t n) const {
    used_ += n;
    if (used_ > budget_) throw RenderBudgetExceeded{};
  }
  size_t per_push_, budget_;
  mutable size_t used_ = 0;
};

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

// An alert from the cortex hook reaches http and file receivers as Siren
// sends it: its flat details plus notification_type (core/notification/
// message.go InitMessageByMetaMessage, no content template for these
// types); any other hook sends the Alertmanager group as it came.
constexpr char kHttpAlertBody[] =
    R"({{#_details_json}}{{{_details_json}}}{{/_details_json}}{{^_details_json}}{{{_payload_json}}}{{/_details_json}})";

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
  // Siren's default alert templates (siren_templates/), so that an alert
  // reaches Slack and Lark as it does from Siren.
  auto siren = [&](const char* name, const char* body, std::vector<std::string> tags) {
    Template t = make(name, body, std::move(tags));
    t.engine = kEngineGoContent;
    return t;
  };
  return {
      make("system-alert-file", kHttpAlertBody, {"system", "alert", "file"}),
      make("system-alert-http", kHttpAlertBody, {"system", "alert", "http"}),
      siren("system-alert-lark", kSirenLarkAlertTemplate, {"system", "alert", "lark", "siren"}),
      siren("system-alert-lark_channel", kSirenLarkAlertTemplate, {"system", "alert", "lark_channel", "siren"}),
      make("system-alert-pagerduty", kPagerDutyAlertBody, {"system", "alert", "pagerduty"}),
      siren("system-alert-slack", kSirenSlackAlertTemplate, {"system", "alert", "slack", "siren"}),
      siren("system-alert-slack_channel", kSirenSlackAlertTemplate, {"system", "alert", "slack_channel", "siren"}),
      make(kDefaultTemplate, kDefaultBody, {"system", "default"}),
  };
}

}  // namespace

std::string JsonEscape(absl::string_view s) {
  std::string quoted = nlohmann::json(std::string(s)).dump();
  return quoted.substr(1, quoted.size() - 2);
}

namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

absl::string_view Trim(absl::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// kainjow's parse_set_delimiter_tag: "=<begin> <end>=" (trimmed contents),
// neither delimiter containing '=' or whitespace. False when invalid.
bool ParseSetDelimiter(absl::string_view contents, std::string* begin, std::string* end) {
  if (contents.size() < 5 || contents.back() != '=') return false;
  absl::string_view inner = Trim(contents.substr(1, contents.size() - 2));
  size_t space = inner.find(' ');
  if (space == absl::string_view::npos) return false;
  size_t next = inner.find_first_not_of(' ', space + 1);
  if (next == absl::string_view::npos) return false;
  absl::string_view b = inner.substr(0, space), e = inner.substr(next);
  for (absl::string_view d : {b, e}) {
    if (d.empty()) return false;
    for (char c : d) {
      if (c == '=' || IsSpace(c)) return false;
    }
  }
  *begin = std::string(b);
  *end = std::string(e);
  return true;
}

}  // namespace

absl::Status CheckTemplateLimits(absl::string_view body) {
  if (body.size() > kMaxTemplateBodyBytes) {
    return absl::InvalidArgumentError(absl::StrCat("template body is ", body.size(),
                                                   " bytes; the limit is ", kMaxTemplateBodyBytes));
  }
  // The tag scan of kainjow's parser (mustache.hpp, parser::parse), counting
  // section opens against closes. Where the parser would stop with an error
  // this stops too and leaves the message to it.
  std::string begin = "{{", end = "}}";
  bool braces = true;  // the default delimiters: {{{x}}} is a triple mustache
  int depth = 0;
  size_t pos = 0;
  const size_t n = body.size();
  while (pos < n) {
    if (body.compare(pos, begin.size(), begin) != 0) {
      ++pos;
      continue;
    }
    size_t contents = pos + begin.size();
    bool triple = braces && contents < n && body[contents] == begin[0];
    const std::string close = triple ? "}}}" : end;
    if (triple) ++contents;
    size_t close_at = body.find(close, contents);
    if (close_at == absl::string_view::npos) return absl::OkStatus();  // "Unclosed tag"
    absl::string_view tag = Trim(body.substr(contents, close_at - contents));
    pos = close_at + close.size();
    if (!tag.empty() && tag[0] == '=') {
      if (!ParseSetDelimiter(tag, &begin, &end)) return absl::OkStatus();  // parser error
      braces = begin == "{{" && end == "}}";
      continue;
    }
    if (triple || tag.empty()) continue;
    if (tag[0] == '#' || tag[0] == '^') {
      if (++depth > kMaxTemplateSectionDepth) {
        return absl::InvalidArgumentError(
            absl::StrCat("template sections nest deeper than ", kMaxTemplateSectionDepth,
                         " (at byte ", close_at, ")"));
      }
    } else if (tag[0] == '/') {
      if (depth == 0) return absl::OkStatus();  // "Unopened section"
      --depth;
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateTemplateBody(absl::string_view body) {
  if (auto st = CheckTemplateLimits(body); !st.ok()) return st;
  mustache tmpl{std::string(body)};
  if (!tmpl.is_valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("template body does not parse: ", tmpl.error_message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RenderTemplateText(const Template& t, const nlohmann::json& data_in,
                                               absl::string_view receiver_type) {
  if (t.engine == kEngineGo) return RenderGoTemplateBody(t, data_in);
  if (t.engine == kEngineGoContent) {
    auto payload = RenderGoPayload(t, data_in, receiver_type);
    if (!payload.ok()) return payload.status();
    return payload->dump();
  }
  if (auto st = CheckTemplateLimits(t.body); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("template \"", t.name, "\": ", st.message()));
  }
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
  BudgetContext budget(&ctx, t.body.size() + 1, kMaxRenderBytes);
  std::ostringstream rendered;
  try {
    tmpl.render(budget, rendered);
  } catch (const RenderBudgetExceeded&) {
    return absl::InvalidArgumentError(absl::StrCat(
        "template \"", t.name, "\" would render more than ", kMaxRenderBytes,
        " bytes with this data (sections over lists multiply)"));
  }
  std::string out = rendered.str();
  if (!tmpl.is_valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("template \"", t.name, "\" failed to render: ", tmpl.error_message()));
  }
  return out;
}

absl::StatusOr<nlohmann::json> RenderPayload(const Template& t, const nlohmann::json& data,
                                             absl::string_view receiver_type) {
  if (t.engine == kEngineGo || t.engine == kEngineGoContent) return RenderGoPayload(t, data, receiver_type);
  auto text = RenderTemplateText(t, data, receiver_type);
  if (!text.ok()) return text.status();
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
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
