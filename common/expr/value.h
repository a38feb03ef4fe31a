// Values of Sluice's expression language (see expr.h for the language).
//
// A Value is null, bool, int64, double, string, list or map. Strings, lists and
// maps can be *borrowed views* into a bound document (a nlohmann::json node or a
// protobuf message) so that evaluation does not copy them; such a Value is only
// valid while that document (and the Program that produced it) is alive. Call
// Materialize() or ToJson() to get an independent copy.
#ifndef SLUICE_COMMON_EXPR_VALUE_H_
#define SLUICE_COMMON_EXPR_VALUE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace google::protobuf {
class Message;
class FieldDescriptor;
}  // namespace google::protobuf

namespace sluice::expr {

class Value {
 public:
  // The language-level type. Proto messages and JSON objects are kMap; repeated
  // fields and JSON arrays are kList; proto enums are kString (the value name).
  enum class Kind { kNull, kBool, kInt, kDouble, kString, kList, kMap };
  using List = std::vector<Value>;
  // Owned maps are ordered by key (std::less<> allows absl/std string_view lookup).
  using Map = std::map<std::string, Value, std::less<>>;

  // A null Value.
  Value() = default;

  static Value Null() { return Value(); }
  static Value Bool(bool b);
  static Value Int(int64_t i);
  static Value Double(double d);
  // Owned string.
  static Value String(std::string s);
  // Borrowed string: `s` must outlive the Value.
  static Value StringView(absl::string_view s);
  static Value MakeList(List items);
  static Value MakeMap(Map items);
  // Borrowed view of a JSON node: scalars become null/bool/int/double/string
  // (strings borrowed; unsigned integers above INT64_MAX become double), arrays
  // and objects stay views. `json` must outlive the Value; nullptr means null.
  static Value Json(const nlohmann::json* json);
  // Borrowed view of a protobuf message (generated or DynamicMessage); kMap.
  // `message` must outlive the Value; nullptr means null.
  static Value Message(const google::protobuf::Message* message);
  // Borrowed view of a repeated or map field of `message` (kList or kMap).
  static Value ProtoField(const google::protobuf::Message* message,
                          const google::protobuf::FieldDescriptor* field);

  Kind kind() const;
  // "null", "bool", "int", "double", "string", "list", "map".
  static const char* KindName(Kind kind);
  const char* kind_name() const { return KindName(kind()); }

  bool is_null() const { return kind() == Kind::kNull; }
  bool is_number() const {
    Kind k = kind();
    return k == Kind::kInt || k == Kind::kDouble;
  }
  // Accessors; each requires the matching kind() (otherwise returns a zero value).
  bool bool_value() const;
  int64_t int_value() const;
  // kInt or kDouble as double.
  double number_value() const;
  absl::string_view string_value() const;

  // Number of elements of a list or entries of a map; bytes of a string; 0 otherwise.
  size_t size() const;
  // Element `index` (0-based) of a list; OutOfRange if out of bounds,
  // InvalidArgument if not a list.
  absl::StatusOr<Value> Element(size_t index) const;
  // Entry of a map with string key `key`: the value, or null if absent.
  // For a proto message, `key` is a field name (InvalidArgument if unknown).
  absl::StatusOr<Value> Find(absl::string_view key) const;
  // Keys of a map, in the map's order (proto fields: set fields in field order).
  std::vector<std::string> Keys() const;

  // Underlying views, or nullptr when this Value is not such a view.
  const google::protobuf::Message* message() const;
  const nlohmann::json* json() const;

  // Guardian's zero-value rule: null, false, 0, 0.0, "", empty list or map.
  bool IsZero() const;
  // Deep copy into an independent (owned) Value. Messages become maps of their
  // set fields (proto field names), enums their names.
  Value Materialize() const;
  // JSON rendering (same shape as Materialize()).
  nlohmann::json ToJson() const;
  // Short human-readable form for messages: strings quoted, lists/maps in JSON.
  std::string DebugString() const;

  // Language equality: int/double compare numerically, lists and maps compare
  // element-wise, different kinds are unequal (never an error).
  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  friend class ValueAccess;  // internal: access.h
  struct FieldRef {
    const google::protobuf::Message* message;
    const google::protobuf::FieldDescriptor* field;
  };
  using Rep = std::variant<std::monostate, bool, int64_t, double, absl::string_view,
                           std::string, std::shared_ptr<const List>,
                           std::shared_ptr<const Map>, const nlohmann::json*,
                           const google::protobuf::Message*, FieldRef>;
  explicit Value(Rep rep) : rep_(std::move(rep)) {}
  Rep rep_;
};

}  // namespace sluice::expr

#endif  // SLUICE_COMMON_EXPR_VALUE_H_
