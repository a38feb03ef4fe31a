// Mustache templates (kainjow/mustache, Debian's libkainjow-mustache-dev)
// that render JSON payloads, and the built-in templates.
//
// Rendering context: the data object, plus
//   receiver.type = "<type>" and receiver.<type> = true, so a body can hold
//     one content per receiver type: {{#receiver.slack}}…{{/receiver.slack}};
//   _json = the whole data as JSON text (use unescaped: {{{_json}}});
//   in every list of objects, each object gets _index, _first and _last (to
//     place commas: {{^_first}},{{/_first}}).
// Interpolated values ({{x}}) are JSON-string escaped, never HTML escaped.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_TEMPLATE_ENGINE_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_TEMPLATE_ENGINE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "server/notification/core/model.h"

namespace sluice::notification {

// The template used when a notification names none.
inline constexpr char kDefaultTemplate[] = "system-default";
// Alert notifications name this; it resolves to system-alert-<receiver type>.
inline constexpr char kAlertTemplate[] = "system-alert";

// The largest template body accepted (bytes).
inline constexpr size_t kMaxTemplateBodyBytes = 64 * 1024;
// The deepest section nesting ({{#x}} / {{^x}}) accepted.
inline constexpr int kMaxTemplateSectionDepth = 100;
// The most a rendering may produce, estimated as it goes (bytes): the body
// once more per section iteration plus every interpolated string.
inline constexpr size_t kMaxRenderBytes = 32 << 20;

// Checks the limits that keep the Mustache parser's memory bounded (it copies
// each section's text, so memory grows with the square of the nesting):
// InvalidArgument when `body` is over kMaxTemplateBodyBytes or its sections
// nest deeper than kMaxTemplateSectionDepth. Tags are found as the parser
// finds them, honouring set-delimiter tags ({{=<% %>=}}) and triple
// mustaches. Runs before the parser; other syntax errors are left to it.
absl::Status CheckTemplateLimits(absl::string_view body);

// Checks CheckTemplateLimits, then that `body` parses as Mustache.
// InvalidArgument with the parser's message and byte position (e.g.
// `Unclosed section "x" at 3`).
absl::Status ValidateTemplateBody(absl::string_view body);

// `s` escaped for the inside of a JSON string literal (RFC 8259 §7).
std::string JsonEscape(absl::string_view s);

// Renders `t` with `data` (declared variable defaults fill missing keys) for
// `receiver_type` ("" for none). InvalidArgument when the body breaks
// CheckTemplateLimits (also for bodies stored before the limits), does not
// parse, rendering fails, or the rendering would exceed kMaxRenderBytes.
absl::StatusOr<std::string> RenderTemplateText(const Template& t, const nlohmann::json& data,
                                               absl::string_view receiver_type);

// RenderTemplateText, then parses the output as JSON. InvalidArgument naming
// the template and the JSON parser's message when the output is not JSON.
absl::StatusOr<nlohmann::json> RenderPayload(const Template& t, const nlohmann::json& data,
                                             absl::string_view receiver_type);

// The built-in templates (tag "system"), by name.
const std::vector<Template>& BuiltinTemplates();

// The built-in template `name`, or nullptr.
const Template* FindBuiltinTemplate(absl::string_view name);

// The concrete template name for `name` and a receiver type: kAlertTemplate
// becomes "system-alert-<type>"; anything else is unchanged.
std::string ResolveTemplateName(absl::string_view name, absl::string_view receiver_type);

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_TEMPLATE_ENGINE_H_
