// depot's Template (com.gotocompany.depot.common.Template) as SINK_TYPE=HTTPV2
// uses it for its URL, header, query and JSON body templates: a pattern with
// `%s` placeholders, then comma-separated field names that fill them
// ("http://h/%s,order_number"). "/,/" is a literal comma in the pattern.
// Fields are read from the decoded record: proto field names (or numbers),
// dotted for nested messages ("driver.id"), or JSON member names.
#ifndef SLUICE_SINK_SINKS_HTTPV2_VALUE_TEMPLATE_H_
#define SLUICE_SINK_SINKS_HTTPV2_VALUE_TEMPLATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {

// One decoded record (the message or the key): protobuf or JSON, exactly one
// of the two set.
struct RecordView {
  const google::protobuf::Message* proto = nullptr;
  const nlohmann::json* json = nullptr;
};

// A compiled template.
class ValueTemplate {
 public:
  // Parses `text` as depot's Template: split at commas (except "/,/"),
  // pieces trimmed, empty pieces dropped; the first is the pattern. With
  // `descriptor` (protobuf input) field names are resolved now; null means
  // JSON input (member names). InvalidArgument naming `variable` when the
  // text is empty, a field is unknown, or the number of '%' in the pattern,
  // of "%s" and of fields differ (depot's Template.validate).
  static absl::StatusOr<ValueTemplate> Parse(absl::string_view text,
                                             const google::protobuf::Descriptor* descriptor,
                                             absl::string_view variable);

  // True when there is no placeholder.
  bool constant() const { return fields_.empty(); }
  // The pattern, "/,/" already replaced by ",".
  const std::string& pattern() const { return pattern_; }

  // The pattern with every %s replaced by its field's text (strings as they
  // are, enums by name, messages and repeated fields as JSON), as depot's
  // Template.parse. InvalidArgument naming the field when the record lacks
  // it (an unset message, a missing JSON member) or was not decoded as the
  // input type.
  absl::StatusOr<std::string> Render(const RecordView& record) const;

  // As Render, with each field's text percent-encoded (UrlEscape: every byte
  // but RFC 3986's unreserved ALPHA / DIGIT / "-" / "." / "_" / "~"), for
  // the URL template: a value fills its slot but cannot add path segments,
  // a query or a fragment (security review R3-M1). The pattern's own text
  // is kept as written. Errors as Render.
  absl::StatusOr<std::string> RenderUrl(const RecordView& record) const;

  // For JSON body templates (depot's Template.parseWithType): a pattern of
  // exactly "%s" gives the field's typed JSON value (number, bool, string,
  // object, array); otherwise the rendered string. `with_defaults`: a
  // nested message lists its fields at default values too
  // (SINK_HTTPV2_DEFAULT_FIELD_VALUE_ENABLE). Errors as Render.
  absl::StatusOr<nlohmann::json> RenderJson(const RecordView& record,
                                            bool with_defaults = false) const;

 private:
  struct Field {
    std::string spec;
    std::vector<int> numbers;         // protobuf input
    std::vector<std::string> names;   // JSON input
    google::protobuf::FieldDescriptor::CppType cpp_type =
        google::protobuf::FieldDescriptor::CPPTYPE_STRING;
    bool structured = false;  // message (not Timestamp), repeated or map
    bool singular_message = false;  // a structured field that is one message
  };
  absl::StatusOr<std::string> FieldText(const Field& f, const RecordView& record) const;
  absl::StatusOr<std::string> RenderText(const RecordView& record, bool url_escape) const;
  absl::StatusOr<nlohmann::json> FieldJson(const Field& f, const RecordView& record,
                                           bool with_defaults) const;

  std::string pattern_;
  std::vector<std::string> pieces_;  // pattern split at "%s"; fields_.size() + 1
  std::vector<Field> fields_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_HTTPV2_VALUE_TEMPLATE_H_
