// Values of the Go text/template engine: the JSON data model (nlohmann::json)
// seen through the Go types that encoding/json would decode it into
// (map[string]interface{}, []interface{}, string, float64, bool, nil; integers
// as Go int), plus the few Go types that functions return ([]string,
// map[string]string, int64). Printing follows Go's fmt %v rules.
#ifndef SLUICE_COMMON_GOTEMPLATE_VALUE_H_
#define SLUICE_COMMON_GOTEMPLATE_VALUE_H_

#include <string>

#include "nlohmann/json.hpp"

namespace sluice::gotemplate {

// The Go type of a Value (reflect.Kind plus the element type that matters).
enum class GoType {
  kInvalid,     // reflect.Value{}: a missing map key, an unwrapped nil
  kNilIface,    // a nil interface{} held in a map or slice (JSON null)
  kRootPtr,     // *interface{}: the data passed to Execute (as Siren passes &data)
  kBool,
  kInt,         // Go int (JSON integers, numeric constants, len)
  kInt64,       // Go int64 (sprig arithmetic)
  kFloat64,
  kString,
  kAnySlice,    // []interface{}
  kStringSlice, // []string
  kMap,         // map[string]interface{}
  kStringMap,   // map[string]string
};

// One value; `j` holds the payload (for kRootPtr: the pointee).
struct Value {
  GoType type = GoType::kInvalid;
  nlohmann::json j;

  static Value Invalid() { return Value{}; }
  static Value Bool(bool b) { return Value{GoType::kBool, b}; }
  static Value Int(int64_t i) { return Value{GoType::kInt, i}; }
  static Value Int64(int64_t i) { return Value{GoType::kInt64, i}; }
  static Value Float(double d) { return Value{GoType::kFloat64, d}; }
  static Value String(std::string s) { return Value{GoType::kString, std::move(s)}; }
  // The Go value encoding/json decodes `j` into, as held inside an
  // interface{} container (null becomes kNilIface).
  static Value FromJson(const nlohmann::json& j);

  bool valid() const { return type != GoType::kInvalid; }
  bool is_string() const { return type == GoType::kString; }
  bool is_int() const { return type == GoType::kInt || type == GoType::kInt64; }
  // The value after reflect indirection through interfaces: kNilIface is
  // kInvalid; a kRootPtr stays (it is a pointer).
  Value Unwrapped() const;
  // The pointee of a kRootPtr, else the value itself.
  Value Deref() const;
};

// Go's name for the type, for error messages ("map[string]interface {}").
std::string GoTypeName(const Value& v);

// fmt.Sprint(v) of one operand (%v): `map[a:1 b:[x y]]`, `[1 2]`, floats as
// %g shortest, nil as <nil>.
std::string FormatValue(const Value& v);

// %v of a float64 (strconv.FormatFloat(f, 'g', -1, 64)).
std::string FormatFloatG(double d);

// encoding/json.Marshal of the value: sorted keys, HTML-safe escaping,
// encoding/json's float format. `indent` non-empty gives MarshalIndent("", indent).
std::string MarshalJson(const nlohmann::json& j, const std::string& indent = "");

// Go's template truth (text/template isTrue): false, 0, nil, empty
// string/slice/map are false; kRootPtr is true.
bool IsTrue(const Value& v);

// Length for len/range: string bytes, slice elements, map entries; -1 when
// the value has no length.
int64_t LengthOf(const Value& v);

}  // namespace sluice::gotemplate

#endif  // SLUICE_COMMON_GOTEMPLATE_VALUE_H_
