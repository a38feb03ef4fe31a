// Sluice's expression language: one engine for the access API's policy
// conditions (`$appeal.resource.details.owner == "x"`, expr-lang/Guardian style)
// and the sink's FILTER_JEXL_EXPRESSION (`sampleLogKey.getDriverId() == "abc"`,
// Firehose/JEXL style with Java protobuf getters).
//
// Grammar (precedence lowest first, JEXL's order; binary levels left-assoc.):
//   c ? a : b
//   a || b, a or b                       (short-circuit; operands bool or null)
//   a && b, a and b                      (short-circuit)
//   a == b, a != b                       (int/double compare numerically; other
//                                         mixed kinds are unequal, never an error)
//   < <= > >=  (numbers, strings)
//   a in b       list membership, substring, map key
//   a contains b / startsWith / endsWith (strings; contains also lists, maps)
//   a matches b  RE2, unanchored (partial) match; literal patterns compile once
//   `not in`, `not contains`, ... negate the above
//   JEXL spellings: a =~ 'regex' (full match) or a =~ [list] (membership), a !~ b,
//   a =^ b (startsWith), a !^ b, a =$ b (endsWith), a !$ b
//   + - (+ concatenates when either side is a string; lists concatenate)
//   * / %  (int op int stays int: 7 / 2 == 3, as in JEXL; otherwise double)
//   unary - + ! not
//   a.b  a["k"]  a[0] (negative counts from the end)  a.getFooBar()  f(x)
// Literals: 12, 1.5, 1e3, 'str', "str" (\n \t \\ \' \" \xHH \uXXXX escapes; other
// backslashes are kept, so '\d+' is a regex), true, false, nil, null, [a, b].
// Identifiers may start with '$' ($appeal). Functions: len(x)/size(x), lower(s),
// upper(s) (ASCII), empty(x) (null, "" or an empty list/map), int(x) (CEL: an int,
// a double truncated, or a decimal string). CEL's macros on lists:
// `l.exists(x, p)`, `l.all(x, p)`, `l.exists_one(x, p)` bind `x` to each element
// (see cel.h for the CEL dialect). Methods on strings (Java style): equals, equalsIgnoreCase, startsWith,
// endsWith, contains, length, isEmpty, toLowerCase, toUpperCase, trim,
// matches (full match); on lists/maps: size, isEmpty, contains, containsKey, get.
//
// Messages (protobuf, incl. DynamicMessage): `m.getFooBar()` / `m.getFooBar` /
// `m.foo_bar` / `m.fooBar` read field foo_bar; unset fields read as their
// defaults (Java getter rule); enums read as their value name; repeated fields
// are lists (getFooList(), getFooCount(), getFoo(i)); map fields are maps
// (getFooMap()); hasFoo() and getFooValue() (enum number) work too. An unknown
// name is an error naming the field and the message type.
// JSON (nlohmann::json): objects are maps, a missing key reads as null, and
// reading a member of null is an error (as in expr-lang, so guard with `!= nil`).
//
// Errors are absl::Status (InvalidArgument; OutOfRange for list indexes), never
// exceptions. Parse errors read "unexpected ')' at column 14" (1-based byte
// column) + the source line + a caret line; runtime errors quote the failing sub-expression and its column.
#ifndef SLUICE_COMMON_EXPR_EXPR_H_
#define SLUICE_COMMON_EXPR_EXPR_H_

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/expr/value.h"
#include "nlohmann/json.hpp"

namespace google::protobuf {
class Descriptor;
class Message;
}  // namespace google::protobuf

namespace sluice::expr {

namespace internal {
struct Node;
}  // namespace internal

// Maps root identifiers ("$appeal", "sampleLogMessage") to bound documents.
// Cheap to build per evaluation (inline storage for two bindings, no heap map).
// Bound names and documents are borrowed: they must outlive the Environment and
// any Value that evaluation returns.
class Environment {
  template <typename S>
  static constexpr bool IsTemporaryString() {
    return std::is_same_v<std::decay_t<S>, std::string> && !std::is_lvalue_reference_v<S>;
  }

 public:
  Environment() = default;
  // Binds `name` to a JSON document. Rebinding a name replaces it.
  Environment& BindJson(absl::string_view name, const nlohmann::json* doc);
  // Binds `name` to a protobuf message (generated or DynamicMessage).
  Environment& BindMessage(absl::string_view name, const google::protobuf::Message* message);
  // Binds `name` to any Value (e.g. an owned map or a scalar).
  Environment& BindValue(absl::string_view name, Value value);
  // The bound value, or nullptr if `name` is unbound.
  const Value* Lookup(absl::string_view name) const;

  // Names are borrowed, so binding a temporary std::string (e.g. the result of
  // ProtoVariableName()) would dangle: these overloads make it a compile error.
  // Keep the name in a variable that outlives the Environment instead.
  template <typename S, typename = std::enable_if_t<IsTemporaryString<S>()>>
  Environment& BindJson(S&& name, const nlohmann::json* doc) = delete;
  template <typename S, typename = std::enable_if_t<IsTemporaryString<S>()>>
  Environment& BindMessage(S&& name, const google::protobuf::Message* message) = delete;
  template <typename S, typename = std::enable_if_t<IsTemporaryString<S>()>>
  Environment& BindValue(S&& name, Value value) = delete;

 private:
  absl::InlinedVector<std::pair<absl::string_view, Value>, 2> bindings_;
};

// An immutable compiled expression. Evaluate() is thread-safe: share one
// Program across threads (per-node field caches are internally synchronized).
class Program {
 public:
  // Parses and checks `source`: syntax, function names and arity, literal regexes.
  // InvalidArgument with a column and caret snippet on error.
  static absl::StatusOr<std::shared_ptr<const Program>> Compile(absl::string_view source);

  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // Evaluates against `env`. The result may borrow from the bound documents and
  // from this Program (string literals): keep both alive, or Materialize() it.
  // InvalidArgument naming the sub-expression on type errors, unknown fields or
  // variables, division by zero, integer overflow, bad dynamic regexes.
  absl::StatusOr<Value> Evaluate(const Environment& env) const;
  // Strict boolean result (Firehose filters): a non-bool result is an error.
  absl::StatusOr<bool> EvaluateBool(const Environment& env) const;
  // Guardian's rule for policy conditions: null, false, 0, "", empty list/map
  // are false; everything else (incl. any message) is true.
  absl::StatusOr<bool> EvaluateTruthy(const Environment& env) const;

  // Root identifiers the expression reads, in order of first use, deduplicated:
  // {"$appeal"} or {"sampleLogMessage"}. For validating policies and checking a
  // filter's variable against the configured message type.
  std::vector<std::string> RootIdentifiers() const;
  // Checks statically that every member chain rooted at `variable` names fields
  // of `type` (and of the nested message types), as far as types are known.
  // InvalidArgument naming the unknown field and message type.
  absl::Status CheckMessageType(absl::string_view variable,
                                const google::protobuf::Descriptor* type) const;
  // The source text this program was compiled from.
  const std::string& source() const { return source_; }

 private:
  friend class CelExpression;  // cel.h checks the tree against its subset
  Program();
  std::string source_;
  std::unique_ptr<internal::Node> root_;
  std::vector<std::string> roots_;
};

// Firehose's variable name for a message type: the simple name with a lower-case
// first letter (SampleLogMessage -> "sampleLogMessage").
std::string ProtoVariableName(const google::protobuf::Descriptor* type);

// Converts an evaluation result to JSON (approver expressions yield an email or
// a list of emails). Same as value.ToJson().
nlohmann::json ToJson(const Value& value);

}  // namespace sluice::expr

#endif  // SLUICE_COMMON_EXPR_EXPR_H_
