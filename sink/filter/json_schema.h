// JSON Schema (draft-07, https://json-schema.org/draft-07/json-schema-validation)
// for FILTER_ENGINE=JSON: Firehose keeps a record when it validates against
// FILTER_JSON_SCHEMA (networknt's validator, SpecVersion V7).
//
// Why our own: Debian's only C++ validator (valijson 1.0) matches `pattern`
// with std::regex, whose recursive matcher overflows the stack on a 100 KB
// string and backtracks exponentially; a poison record must not crash or hang
// the worker. Here patterns are RE2 (linear time), and recursion is bounded by
// the record's nesting (kMaxJsonDepth) plus kMaxRefDepth $ref hops.
//
// Supported keywords (all draft-07 assertions): type, enum, const,
// multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum,
// maxLength, minLength (code points), pattern, items (schema or array),
// additionalItems, maxItems, minItems, uniqueItems, contains, maxProperties,
// minProperties, required, properties, patternProperties,
// additionalProperties, dependencies, propertyNames, if/then/else, allOf,
// anyOf, oneOf, not, boolean schemas, definitions and local $ref ("#",
// "#/definitions/x", any "#/..." JSON pointer).
// Not supported: remote or $id-relative $ref (refused at compile time);
// `format` is an annotation and is not asserted (the draft-07 default);
// ECMA-262 regex features RE2 lacks (backreferences, lookaround) are refused
// at compile time. Unknown keywords are ignored, as the spec requires.
#ifndef SLUICE_SINK_FILTER_JSON_SCHEMA_H_
#define SLUICE_SINK_FILTER_JSON_SCHEMA_H_

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "re2/re2.h"

namespace sluice::sink {

// Longest chain of $ref hops followed without reading deeper into the
// instance; a longer chain (e.g. {"$ref": "#"}) is a cycle.
inline constexpr int kMaxRefDepth = 64;

class JsonSchema {
 public:
  // Parses `schema_text` and checks every keyword's shape. InvalidArgument
  // names the JSON pointer of the bad keyword ("/properties/age/minimum: must
  // be a number"), an unresolvable $ref, or a pattern RE2 cannot compile.
  static absl::StatusOr<std::unique_ptr<JsonSchema>> Compile(absl::string_view schema_text);

  // True when `instance` validates. InvalidArgument only when a $ref chain
  // loops (more than kMaxRefDepth hops). Thread-compatible: const after Compile.
  absl::StatusOr<bool> Validate(const nlohmann::json& instance) const;

 private:
  class Validator;
  class Checker;
  JsonSchema() = default;

  nlohmann::json root_;
  // Compiled `pattern` / `patternProperties` keys, by pattern text.
  absl::flat_hash_map<std::string, std::unique_ptr<RE2>> regexes_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_FILTER_JSON_SCHEMA_H_
