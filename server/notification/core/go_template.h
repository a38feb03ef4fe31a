// Siren's templates (engine "go"): Go text/template (common/gotemplate) with
// YAML bodies, as Siren's core/template (parser.go, service.go, message.go)
// and core/notification/message.go use them.
//
// A "go" body is YAML, one of:
//   - a list of messages: [{receiver_type: slack, content: "<{{ }} template>"}...]
//     (Siren's message template format); the content for a receiver type is
//     rendered with {{ }} over Siren's notification view (SirenView) and the
//     YAML it renders to becomes the payload;
//   - a list of rules: [{alert|record: ..., expr: ..., for, labels, annotations}...]
//     (Siren's rule template format; only validated here, rules are part 2).
// The whole body, with `variables` (type, default, description), renders
// with Siren's [[ ]] delimiters (RenderGoTemplateBody, Siren's Render).
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_GO_TEMPLATE_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_GO_TEMPLATE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "server/notification/core/model.h"

namespace sluice::notification {

// Template engines (Template::engine).
inline constexpr char kEngineMustache[] = "mustache";
inline constexpr char kEngineGo[] = "go";
// Built-in only: the body is one message content ({{ }}), e.g. Siren's
// default alert templates; never accepted from the API.
inline constexpr char kEngineGoContent[] = "go-content";

// InvalidArgument naming the field unless `engine` is "" (mustache),
// "mustache" or "go".
absl::Status ValidateEngine(absl::string_view engine);

// Checks a "go" body: it parses as a [[ ]] template; it is a YAML list of
// messages (each with receiver_type and a content that parses as a {{ }}
// template) or of rules (each with expr and alert or record), not both.
// Rules are read after rendering the body with the variables' defaults
// (Siren parses rules after Render; `expr: [[.x]] > 1` is YAML only then).
// InvalidArgument naming the field ("body[1].content: template: ...").
absl::Status ValidateGoTemplateBody(absl::string_view body,
                                    const std::vector<TemplateVariable>& variables = {});

// Siren's notification as its templates see it: {"Data": ..., "Labels":
// ..., "UniqueKey": ...}. For Sluice's alert data (notify.h
// AlertTemplateData: alerts[], group_key, status, num_firing) it is what
// Siren's alert service builds (core/alert/service.go BuildNotifications):
// Data = the alerts' annotations (distinct values joined by "\n"), status,
// generator_url, num_alerts_firing, triggered_at and the first alert's
// labels; Labels = the first alert's labels; UniqueKey = the group key.
// Other data is Data as is, with its "labels" object as Labels if present.
nlohmann::json SirenView(const nlohmann::json& data);

// The message content of a "go" template for `receiver_type` (slack_channel
// uses slack's, as in Siren's MessageContentByReceiverType).
// InvalidArgument when there is none or it is empty.
absl::StatusOr<std::string> GoMessageContent(const Template& t, absl::string_view receiver_type);

// Renders a "go" or "go-content" template for a receiver: the content with
// {{ }} over SirenView(data), then the YAML output as JSON. InvalidArgument
// naming the template on a template or YAML error, when the output holds a
// YAML anchor or alias (Siren's templates use none), or when the whole
// render passes kPayloadRenderTime or kPayloadMaxBytes.
absl::StatusOr<nlohmann::json> RenderGoPayload(const Template& t, const nlohmann::json& data,
                                               absl::string_view receiver_type);

// Siren's Render: the whole body with [[ ]] over the declared variables
// (each the request's value if given, else its default).
absl::StatusOr<std::string> RenderGoTemplateBody(const Template& t, const nlohmann::json& variables);

// Bounds on YamlToJson (security review R3-H1). yaml-cpp keeps an alias as
// a reference to its anchor, and each use of it is converted again, so
// without a bound a few hundred bytes expand to gigabytes. (Siren's Go yaml
// refuses "excessive aliasing" the same way.)
struct YamlLimits {
  bool allow_aliases = true;  // false: any anchor or alias is refused
  size_t max_nodes = 0;       // nodes converted; 0: 16 per input byte + 1,024
  size_t max_bytes = 0;       // keys and scalars converted; 0: 8 per input byte + 64 KiB
  absl::Time deadline = absl::InfiniteFuture();
};

// The budgets of one rendered payload (RenderGoPayload): the template and
// the YAML conversion together, as the template engine's own (2 s, 4 MiB).
inline constexpr absl::Duration kPayloadRenderTime = absl::Seconds(2);
inline constexpr size_t kPayloadMaxBytes = 4 << 20;

// YAML text (one document) as JSON: mappings, sequences, and scalars typed
// as YAML 1.1 does for Siren's yaml.v2 (null, true/false, ints, floats,
// strings). InvalidArgument with the parser's message, or naming the budget
// of `limits` that the document exceeds.
absl::StatusOr<nlohmann::json> YamlToJson(absl::string_view yaml, const YamlLimits& limits = {});

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_GO_TEMPLATE_H_
