// Field-level reads of JSON records (INPUT_SCHEMA_DATA_TYPE=json) for sinks
// that map fields to columns: the JSON counterpart of proto_values.h. The
// mappings themselves are parsed by ParseFieldMapping (record_fields.h).
#ifndef SLUICE_SINK_SINKS_COMMON_JSON_VALUES_H_
#define SLUICE_SINK_SINKS_COMMON_JSON_VALUES_H_

#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace sluice::sink {

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
