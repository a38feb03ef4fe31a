// Field-level reads of JSON records (INPUT_SCHEMA_DATA_TYPE=json) for sinks
// that map fields to columns: the JSON counterpart of proto_values.h.
#ifndef SLUICE_SINK_SINKS_COMMON_JSON_VALUES_H_
#define SLUICE_SINK_SINKS_COMMON_JSON_VALUES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {

// One mapped column: the member path from the record's root object
// ({"driver", "name"} reads record.driver.name) and the target column.
struct JsonColumn {
  std::vector<std::string> path;
  std::string column;
};

// Parses INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING: a JSON object whose keys are
// member names and whose values are column names, or nested objects for
// nested members, the shape of INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING with
// names instead of field numbers:
//   {"order_number": "order_number", "driver": {"name": "driver_name"}}
// Columns come back in the mapping's key order (depth first, keys sorted).
// InvalidArgument naming `variable` on bad JSON, an empty mapping, an empty
// column name, or a value that is neither a string nor an object.
absl::StatusOr<std::vector<JsonColumn>> ParseJsonColumnMapping(
    absl::string_view text, absl::string_view variable = "INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING");

// The member at `path` in `record`, or null when a step is missing, goes
// through a non-object, or the member is JSON null.
const nlohmann::json* JsonMemberAt(const nlohmann::json& record, const std::vector<std::string>& path);

// The value at `path` in `record` as column text: strings as they are,
// numbers and booleans as JSON text ("12.5", "true"), objects and arrays as
// compact JSON (for json/jsonb columns); nullopt (SQL NULL) for null, a
// missing member, or a path through a non-object.
std::optional<std::string> JsonFieldText(const nlohmann::json& record,
                                         const std::vector<std::string>& path);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_COMMON_JSON_VALUES_H_
