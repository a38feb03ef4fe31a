#include "server/notification/core/go_template.h"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <sstream>
#include <map>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/gotemplate/gotemplate.h"

namespace sluice::notification {
namespace {

// The template name Siren parses bodies under (core/template/service.go).
constexpr char kParseName[] = "parser";

nlohmann::json ScalarToJson(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted: always a string
  std::string lower = absl::AsciiStrToLower(s);
  if (s.empty() || s == "~" || lower == "null") return nullptr;
  if (lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "false" || lower == "no" || lower == "off") return false;
  char* end = nullptr;
  long long i = std::strtoll(s.c_str(), &end, 0);
  if (end != nullptr && *end == '\0' && s.find_first_of("0123456789") != std::string::npos &&
      s.find('.') == std::string::npos) {
    return static_cast<int64_t>(i);
  }
  double d = std::strtod(s.c_str(), &end);
  if (end != nullptr && *end == '\0' && s.find_first_of("0123456789") != std::string::npos &&
      s.find_first_of("xX") == std::string::npos) {
    return d;
  }
  return s;
}

// Refuses anchors and aliases while the parser reads the document (one pass
// of events, nothing kept).
class AliasRefuser : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t a) override { Check(m, a); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { Refuse(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t a, const std::string&) override {
    Check(m, a);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a,
                       YAML::EmitterStyle::value) override {
    Check(m, a);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
    Check(m, a);
  }
  void OnMapEnd() override {}

 private:
  static void Check(const YAML::Mark& m, YAML::anchor_t a) {
    if (a != YAML::NullAnchor) Refuse(m);
  }
  [[noreturn]] static void Refuse(const YAML::Mark& m) {
    throw YAML::Exception(m, "anchors and aliases are not allowed here");
  }
};

// YAML nodes as JSON within a budget of nodes, bytes and time: an alias is
// converted again each time it is used, so the output may be far larger
// than the input (security review R3-H1).
class Converter {
 public:
  Converter(size_t max_nodes, size_t max_bytes, absl::Time deadline)
      : max_nodes_(max_nodes), max_bytes_(max_bytes), deadline_(deadline) {}

  nlohmann::json Convert(const YAML::Node& n, int depth) {
    if (depth > 100) throw YAML::Exception(YAML::Mark::null_mark(), "document nests too deeply");
    Count(2);
    switch (n.Type()) {
      case YAML::NodeType::Sequence: {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& e : n) a.push_back(Convert(e, depth + 1));
        return a;
      }
      case YAML::NodeType::Map: {
        nlohmann::json o = nlohmann::json::object();
        for (const auto& kv : n) {
          std::string key = kv.first.as<std::string>();
          Count(key.size() + 4);
          o[std::move(key)] = Convert(kv.second, depth + 1);
        }
        return o;
      }
      case YAML::NodeType::Scalar:
        Count(n.Scalar().size());
        return ScalarToJson(n);
      default:
        return nullptr;
    }
  }

 private:
  // One node of `bytes` more output; throws past a budget.
  void Count(size_t bytes) {
    bytes_ += bytes;
    if (++nodes_ > max_nodes_ || bytes_ > max_bytes_) {
      throw YAML::Exception(YAML::Mark::null_mark(),
                            absl::StrCat("document expands past ", max_nodes_, " nodes or ", max_bytes_,
                                         " bytes (anchors and aliases repeat what they name)"));
    }
    if (nodes_ % 1024 == 0 && absl::Now() > deadline_) {
      throw YAML::Exception(YAML::Mark::null_mark(), "conversion ran past its time budget");
    }
  }

  const size_t max_nodes_;
  const size_t max_bytes_;
  const absl::Time deadline_;
  size_t nodes_ = 0;
  size_t bytes_ = 0;
};

nlohmann::json LabelsOf(const nlohmann::json& alert) {
  if (alert.is_object() && alert.contains("labels") && alert["labels"].is_object()) return alert["labels"];
  return nlohmann::json::object();
}

std::string StringAt(const nlohmann::json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_string()) return j[key].get<std::string>();
  return "";
}

// Go's time.Time.String() in UTC, for an RFC 3339 time ("" when unparsable).
std::string GoTimeString(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) return rfc3339;
  return absl::FormatTime("%Y-%m-%d %H:%M:%E*S +0000 UTC", t, absl::UTCTimeZone());
}

}  // namespace

absl::Status ValidateEngine(absl::string_view engine) {
  if (engine.empty() || engine == kEngineMustache || engine == kEngineGo) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("engine: \"", engine, "\" is not one of \"mustache\", \"go\""));
}

absl::StatusOr<nlohmann::json> YamlToJson(absl::string_view yaml, const YamlLimits& limits) {
  size_t max_nodes = limits.max_nodes != 0 ? limits.max_nodes : 16 * yaml.size() + 1024;
  size_t max_bytes = limits.max_bytes != 0 ? limits.max_bytes : 8 * yaml.size() + (64 << 10);
  try {
    std::string text(yaml);
    if (!limits.allow_aliases) {
      std::istringstream in(text);
      YAML::Parser parser(in);
      AliasRefuser refuser;
      while (parser.HandleNextDocument(refuser)) {
      }
    }
    YAML::Node n = YAML::Load(text);
    return Converter(max_nodes, max_bytes, limits.deadline).Convert(n, 0);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("YAML: ", e.what()));
  }
}

absl::Status ValidateGoTemplateBody(absl::string_view body, const std::vector<TemplateVariable>& variables) {
  auto whole = gotemplate::TemplateSet::Parse(kParseName, std::string(body), "[[", "]]");
  if (!whole.ok()) return absl::InvalidArgumentError(absl::StrCat("body: ", whole.status().message()));
  auto doc = YamlToJson(body);
  if (!doc.ok() || !doc->is_array()) {
    // A rule list may be YAML only once its [[ ]] variables are filled in.
    nlohmann::json defaults = nlohmann::json::object();
    for (const TemplateVariable& v : variables) defaults[v.name] = v.default_value;
    auto rendered = whole->Execute(kParseName, defaults);
    if (rendered.ok()) {
      auto again = YamlToJson(*rendered);
      if (again.ok() && again->is_array()) doc = again;
    }
  }
  if (!doc.ok()) return absl::InvalidArgumentError(absl::StrCat("body: ", doc.status().message()));
  if (!doc->is_array() || doc->empty()) {
    return absl::InvalidArgumentError("body: must be a YAML list of messages or of rules");
  }
  int messages = 0, rules = 0;
  for (size_t i = 0; i < doc->size(); ++i) {
    const nlohmann::json& e = (*doc)[i];
    std::string field = absl::StrCat("body[", i, "]");
    if (!e.is_object()) return absl::InvalidArgumentError(field + ": must be a mapping");
    if (e.contains("receiver_type")) {
      ++messages;
      if (!e["receiver_type"].is_string() || e["receiver_type"].get<std::string>().empty()) {
        return absl::InvalidArgumentError(field + ".receiver_type: must be a non-empty string");
      }
      if (!e.contains("content") || !e["content"].is_string() || e["content"].get<std::string>().empty()) {
        return absl::InvalidArgumentError(field + ".content: is required");
      }
      auto parsed = gotemplate::TemplateSet::Parse(kParseName, e["content"].get<std::string>(), "{{", "}}");
      if (!parsed.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(field, ".content: ", parsed.status().message()));
      }
    } else {
      ++rules;
      if (!e.contains("expr") || !e["expr"].is_string()) {
        return absl::InvalidArgumentError(field + ".expr: is required (a rule) or receiver_type (a message)");
      }
      if (!e.contains("alert") && !e.contains("record")) {
        return absl::InvalidArgumentError(field + ": a rule needs alert or record");
      }
      for (const char* m : {"labels", "annotations"}) {
        if (e.contains(m) && !e[m].is_object()) {
          return absl::InvalidArgumentError(absl::StrCat(field, ".", m, ": must be a mapping"));
        }
      }
    }
  }
  if (messages > 0 && rules > 0) {
    return absl::InvalidArgumentError("body: mixes messages and rules; a template holds one kind");
  }
  return absl::OkStatus();
}

nlohmann::json SirenView(const nlohmann::json& data) {
  nlohmann::json view = nlohmann::json::object();
  bool alert = data.is_object() && data.contains("alerts") && data["alerts"].is_array() &&
               data.contains("group_key");
  if (!alert) {
    view["Data"] = data;
    view["Labels"] = data.is_object() && data.contains("labels") && data["labels"].is_object()
                         ? data["labels"]
                         : nlohmann::json::object();
    view["UniqueKey"] = StringAt(data, "unique_key");
    return view;
  }
  const nlohmann::json& alerts = data["alerts"];
  nlohmann::json d = nlohmann::json::object();
  // Annotations of every alert: distinct values per key, in alert order.
  std::map<std::string, std::vector<std::string>> merged;
  for (const auto& a : alerts) {
    if (!a.is_object() || !a.contains("annotations") || !a["annotations"].is_object()) continue;
    for (const auto& [k, v] : a["annotations"].items()) {
      if (!v.is_string()) continue;
      auto& vals = merged[k];
      if (std::find(vals.begin(), vals.end(), v.get<std::string>()) == vals.end()) {
        vals.push_back(v.get<std::string>());
      }
    }
  }
  for (const auto& [k, vals] : merged) d[k] = absl::StrJoin(vals, "\n");
  nlohmann::json sample = alerts.empty() ? nlohmann::json::object() : alerts[0];
  d["status"] = alerts.empty() ? StringAt(data, "status") : StringAt(sample, "status");
  d["generator_url"] = StringAt(sample, "generator_url");
  d["num_alerts_firing"] = data.contains("num_firing") && data["num_firing"].is_number_integer()
                               ? data["num_firing"].get<int64_t>()
                               : 0;
  d["triggered_at"] = GoTimeString(StringAt(sample, "starts_at"));
  nlohmann::json labels = LabelsOf(sample);
  for (const auto& [k, v] : labels.items()) d[k] = v;
  view["Data"] = d;
  view["Labels"] = labels;
  view["UniqueKey"] = StringAt(data, "group_key");
  return view;
}

absl::StatusOr<std::string> GoMessageContent(const Template& t, absl::string_view receiver_type) {
  if (t.engine == kEngineGoContent) return t.body;
  auto doc = YamlToJson(t.body);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("template \"", t.name, "\": ", doc.status().message()));
  }
  std::string key = receiver_type == "slack_channel" ? "slack" : std::string(receiver_type);
  std::string content;
  if (doc->is_array()) {
    for (const auto& m : *doc) {
      if (StringAt(m, "receiver_type") == key) content = StringAt(m, "content");
    }
  }
  if (content.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("template \"", t.name, "\" has no message content for receiver type ", receiver_type));
  }
  return content;
}

absl::StatusOr<nlohmann::json> RenderGoPayload(const Template& t, const nlohmann::json& data,
                                               absl::string_view receiver_type) {
  absl::Time deadline = absl::Now() + kPayloadRenderTime;
  auto content = GoMessageContent(t, receiver_type);
  if (!content.ok()) return content.status();
  gotemplate::Limits limits;
  limits.max_output_bytes = kPayloadMaxBytes;
  limits.max_time = absl::ToChronoMilliseconds(kPayloadRenderTime);
  auto text = gotemplate::Render(kParseName, *content, SirenView(data), "{{", "}}", limits);
  if (!text.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("failed to render template \"", t.name, "\" for receiver ",
                                                   receiver_type, ": ", text.status().message()));
  }
  YamlLimits yaml;
  yaml.allow_aliases = false;
  yaml.max_bytes = kPayloadMaxBytes;
  yaml.deadline = deadline;
  auto payload = YamlToJson(*text, yaml);
  if (!payload.ok() || !payload->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "template \"", t.name, "\" for receiver ", receiver_type, " did not render a YAML mapping: ",
        payload.ok() ? std::string("got ") + payload->type_name() : std::string(payload.status().message())));
  }
  return *payload;
}

absl::StatusOr<std::string> RenderGoTemplateBody(const Template& t, const nlohmann::json& variables) {
  nlohmann::json vars = nlohmann::json::object();
  for (const TemplateVariable& v : t.variables) {
    if (variables.is_object() && variables.contains(v.name)) {
      vars[v.name] = variables[v.name];
    } else {
      vars[v.name] = v.default_value;
    }
  }
  auto out = gotemplate::Render(kParseName, t.body, vars, "[[", "]]");
  if (!out.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("template \"", t.name, "\": ", out.status().message()));
  }
  return *out;
}

}  // namespace sluice::notification
