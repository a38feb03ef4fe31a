// SINK_HTTP_SERIALIZER_JSON_TYPECAST, Firehose's semantics
// (firehose: serializer/TypecastedJsonSerializer and
// config/converter/HttpSinkSerializerJsonTypecastConfigConverter): a JSON
// array of {"jsonPath": "...", "type": "INTEGER|LONG|DOUBLE|STRING"}. After a
// message is serialized, every value its path selects in the body is
// replaced by the value's text cast to that type; null and missing values
// are left alone.
#ifndef SLUICE_SINK_SINKS_HTTP_JSON_TYPECAST_H_
#define SLUICE_SINK_SINKS_HTTP_JSON_TYPECAST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice::sink {

// One compiled cast. Paths are a JsonPath subset: definite `$.a.b`,
// `$.a[0].b`, and the deep scan `$..name` (every member called `name`).
struct JsonTypecast {
  enum class Type { kInteger, kLong, kDouble, kString };
  std::string path;                // as configured, for messages
  std::vector<std::string> steps;  // names, or "[N]"; empty for a deep scan
  std::string deep_name;           // `$..name`
  Type type = Type::kString;
};

// Parses the variable's value ("" or "[]": no casts). InvalidArgument naming
// SINK_HTTP_SERIALIZER_JSON_TYPECAST on bad JSON, a missing jsonPath or
// type, an unknown type or an unsupported path.
absl::StatusOr<std::vector<JsonTypecast>> ParseJsonTypecasts(absl::string_view text);

// Applies `casts` to the JSON text `body` (member order kept). A body that
// is not JSON is returned unchanged (Firehose suppresses path errors).
// InvalidArgument when a selected value cannot be cast (e.g. "12.5" to
// INTEGER, or an INTEGER outside 32 bits), as Java's Integer.valueOf fails.
absl::StatusOr<std::string> ApplyJsonTypecasts(const std::vector<JsonTypecast>& casts,
                                               absl::string_view body);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_HTTP_JSON_TYPECAST_H_
