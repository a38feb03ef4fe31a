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
  static Value Bool(bool b) {
    Value v;
    v.tag_ = Tag::kBool;
    v.u_.b = b;
    return v;
  }
  static Value Int(int64_t i) {
    Value v;
    v.tag_ = Tag::kInt;
    v.u_.i = i;
    return v;
  }
  static Value Double(double d) {
    Value v;
    v.tag_ = Tag::kDouble;
    v.u_.d = d;
    return v;
  }
  // Owned string.
  static Value String(std::string s);
  // Borrowed string: `s` must outlive the Value.
  static Value StringView(absl::string_view s) {
    Value v;
    v.tag_ = Tag::kString;
    v.u_.s.data = s.data();
    v.u_.s.size = s.size();
    return v;
  }
  static Value MakeList(List items);
  static Value MakeMap(Map items);
  // Borrowed view of a JSON node: scalars become null/bool/int/double/string
  // (strings borrowed; unsigned integers above INT64_MAX become double), arrays
  // and objects stay views. `json` must outlive the Value; nullptr means null.
  static Value Json(const nlohmann::json* json);
  // Borrowed view of a protobuf message (generated or DynamicMessage); kMap.
  // `message` must outlive the Value; nullptr means null.
  static Value Message(const google::protobuf::Message* message) {
    Value v;
    if (message != nullptr) {
      v.tag_ = Tag::kMessage;
      v.u_.message = message;
    }
    return v;
  }
  // Borrowed view of a repeated or map field of `message` (kList or kMap).
  static Value ProtoField(const google::protobuf::Message* message,
                          const google::protobuf::FieldDescriptor* field);

  Kind kind() const {
    switch (tag_) {
      case Tag::kNull: return Kind::kNull;
      case Tag::kBool: return Kind::kBool;
      case Tag::kInt: return Kind::kInt;
      case Tag::kDouble: return Kind::kDouble;
      case Tag::kString: return Kind::kString;
      case Tag::kList: return Kind::kList;
      case Tag::kMap:
      case Tag::kMessage: return Kind::kMap;
      default: return SlowKind();
    }
  }
  // "null", "bool", "int", "double", "string", "list", "map".
  static const char* KindName(Kind kind);
  const char* kind_name() const { return KindName(kind()); }

  bool is_null() const { return tag_ == Tag::kNull; }
  bool is_number() const { return tag_ == Tag::kInt || tag_ == Tag::kDouble; }
  // Accessors; each requires the matching kind() (otherwise returns a zero value).
  bool bool_value() const { return tag_ == Tag::kBool && u_.b; }
  int64_t int_value() const { return tag_ == Tag::kInt ? u_.i : 0; }
  // kInt or kDouble as double.
  double number_value() const {
    return tag_ == Tag::kDouble ? u_.d : tag_ == Tag::kInt ? static_cast<double>(u_.i) : 0.0;
  }
  absl::string_view string_value() const {
    return tag_ == Tag::kString ? absl::string_view(u_.s.data, u_.s.size) : absl::string_view();
  }

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
  const google::protobuf::Message* message() const {
    return tag_ == Tag::kMessage ? u_.message : nullptr;
  }
  const nlohmann::json* json() const { return tag_ == Tag::kJson ? u_.json : nullptr; }

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
  // A small tagged union: scalars and borrowed views live in `u_`; owned
  // strings, lists and maps are kept alive by `owned_` (shared, immutable), with
  // `u_` pointing into them, so copies are cheap and destruction is trivial for
  // everything a filter usually touches.
  enum class Tag : uint8_t {
    kNull, kBool, kInt, kDouble, kString, kList, kMap, kJson, kMessage, kField,
  };
  struct FieldRef {
    const google::protobuf::Message* message;
    const google::protobuf::FieldDescriptor* field;
  };
  union Payload {
    bool b;
    int64_t i;
    double d;
    struct {
      const char* data;
      size_t size;
    } s;
    const List* list;
    const Map* map;
    const nlohmann::json* json;
    const google::protobuf::Message* message;
    FieldRef field;
  };
  Kind SlowKind() const;
  const FieldRef* field_ref() const { return tag_ == Tag::kField ? &u_.field : nullptr; }
  const List* owned_list() const { return tag_ == Tag::kList ? u_.list : nullptr; }
  const Map* owned_map() const { return tag_ == Tag::kMap ? u_.map : nullptr; }

  Tag tag_ = Tag::kNull;
  Payload u_{};
  std::shared_ptr<const void> owned_;
};

}  // namespace sluice::expr

#endif  // SLUICE_COMMON_EXPR_VALUE_H_
