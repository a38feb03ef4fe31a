// SINK_HTTP_JSON_BODY_TEMPLATE, Firehose's semantics
// (firehose: serializer/MessageToTemplatizedJson): every quoted "$.path" in the
// template is replaced by the JSON of that path in the message (printed with
// proto field names and default values); "$._all_" inserts the whole message.
// Paths are a JsonPath subset: `$.a.b`, `$.a[0]`, `$.a[0].b`.
#ifndef SLUICE_SINK_SINKS_HTTP_JSON_TEMPLATE_H_
#define SLUICE_SINK_SINKS_HTTP_JSON_TEMPLATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice::sink {

// A compiled body template.
class JsonTemplate {
 public:
  // SINK_HTTP_JSON_BODY_TEMPLATE_PARSE_OPTION: the Jayway JsonPath option
  // Firehose adds to its path configuration (empty: none).
  enum class ParseOption {
    kNone,
    kDefaultPathLeafToNull,  // a missing last step renders as nothing
    kSuppressExceptions,     // any missing path renders as nothing
    kAlwaysReturnList,       // a found value renders as a one-element array
    kRequireProperties,      // same as none for the definite paths supported
  };

  // Parses the variable's value (case-insensitive, trimmed; empty = kNone).
  // InvalidArgument naming SINK_HTTP_JSON_BODY_TEMPLATE_PARSE_OPTION and
  // listing the valid options otherwise; AS_PATH_LIST is refused (it renders
  // path names instead of values).
  static absl::StatusOr<ParseOption> ParseOptionFromEnv(absl::string_view value);

  // InvalidArgument naming SINK_HTTP_JSON_BODY_TEMPLATE when `text` is not JSON
  // or a path is malformed.
  static absl::StatusOr<JsonTemplate> Parse(absl::string_view text,
                                            ParseOption option = ParseOption::kNone);

  // Renders the template for a message whose JSON is `message_json`.
  // InvalidArgument when a path is absent from the message, except that, as
  // in Firehose's MessageToTemplatizedJson, with kSuppressExceptions (any
  // step) or kDefaultPathLeafToNull (last step only) the quoted placeholder
  // is replaced by nothing (`{"a":"$.x"}` becomes `{"a":}`, as Firehose
  // sends it).
  absl::StatusOr<std::string> Render(absl::string_view message_json) const;

 private:
  struct Piece {
    std::string literal;       // text copied as is
    bool is_path = false;      // else a placeholder:
    bool all = false;          // "$._all_"
    std::vector<std::string> steps;  // names, or "[N]" for indexes
    std::string path;          // for error messages
  };
  std::vector<Piece> pieces_;
  bool needs_parse_ = false;   // some placeholder is a real path
  ParseOption option_ = ParseOption::kNone;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_HTTP_JSON_TEMPLATE_H_
