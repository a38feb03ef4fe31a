// Internal: the one small interface through which the evaluator reads bound
// documents. A Value is either a plain value or a borrowed view of a JSON node
// or a protobuf message/field; these functions hide which.
#ifndef SLUICE_COMMON_EXPR_ACCESS_H_
#define SLUICE_COMMON_EXPR_ACCESS_H_

#include <atomic>
#include <functional>
#include <optional>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/expr/value.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace sluice::expr {

// Friend of Value: exposes the representation to the internal helpers.
class ValueAccess {
 public:
  using FieldRef = Value::FieldRef;
  // The repeated/map field a Value views, or nullptr.
  static const FieldRef* field_ref(const Value& v) { return v.field_ref(); }
  // The owned list / map of a Value, or nullptr.
  static const Value::List* owned_list(const Value& v) { return v.owned_list(); }
  static const Value::Map* owned_map(const Value& v) { return v.owned_map(); }
};

namespace internal {

// How a member name maps onto a message field (Java protobuf getter rules:
// getFooBar -> foo_bar, getFooList/getFooCount for repeated, getFooMap for
// maps, hasFoo, getFooValue for enums; a plain proto field name works too).
enum class FieldAccess { kValue, kCount, kHas, kEnumNumber, kElement };
struct ResolvedField {
  const google::protobuf::FieldDescriptor* field = nullptr;
  FieldAccess access = FieldAccess::kValue;
};

// Resolves `name` on `type`. `nargs` is the number of call arguments, or -1 for
// a member access without parentheses. NotFound-style InvalidArgument naming
// the field and the message type if nothing matches.
absl::StatusOr<ResolvedField> ResolveField(const google::protobuf::Descriptor* type,
                                           absl::string_view name, int nargs);

// Reads a resolved field (not kElement). Unset singular fields read as their
// default (messages as the default instance), like Java getters.
Value ReadField(const google::protobuf::Message& m, const ResolvedField& f);
// Element `index` of repeated `field` (caller checks the bound).
Value ReadRepeated(const google::protobuf::Message& m,
                   const google::protobuf::FieldDescriptor* field, int index);

// Per-AST-node cache of (message type -> resolved field). Lock-free on the hit
// path; at most kMaxEntries distinct types are remembered.
class FieldCache {
 public:
  FieldCache() = default;
  FieldCache(const FieldCache&) = delete;
  FieldCache& operator=(const FieldCache&) = delete;
  // The cached resolution for `type`, or nullptr (then call Resolve).
  const ResolvedField* Find(const google::protobuf::Descriptor* type) const {
    const Entry* e = last_.load(std::memory_order_acquire);
    return e != nullptr && e->type == type ? &e->resolved : nullptr;
  }
  // Resolves `name` on `type` and remembers the result.
  absl::StatusOr<ResolvedField> Resolve(const google::protobuf::Descriptor* type,
                                        absl::string_view name, int nargs) const;

 private:
  static constexpr size_t kMaxEntries = 8;
  struct Entry {
    const google::protobuf::Descriptor* type;
    ResolvedField resolved;
  };
  mutable std::atomic<const Entry*> last_{nullptr};
  // std::mutex rather than absl::Mutex: Debian's absl is not built with TSan
  // instrumentation, so ThreadSanitizer cannot see absl::Mutex's ordering.
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
};

// container[key]: lists take an int (negative counts from the end; OutOfRange
// error outside), maps a key (null if absent), messages a field name.
absl::StatusOr<Value> Index(const Value& container, const Value& key);
// A Java-style getter on a JSON object or an owned map (Firehose's JEXL
// spelling over JSON records): getDriverId() reads "driverId", else
// "driver_id", else "DriverId"; getFooList()/getFooMap() read "foo" and
// getFooCount() its size when no key matches the full name; hasFoo() is true
// when the key is present and not null. A missing key reads as null.
// nullopt when `method` is not get<Upper>/has<Upper> or `map` is neither.
std::optional<Value> MapGetter(const Value& map, absl::string_view method);
// `item in container`: list membership (==), substring, map key.
absl::StatusOr<bool> Contains(const Value& container, const Value& item);
// Ordering for < <= > >=: numbers and strings only. Returns -1/0/1.
absl::StatusOr<int> Compare(const Value& a, const Value& b);
// Calls `fn` for each element of a list; stops early if fn returns false.
void ForEachElement(const Value& list, const std::function<bool(const Value&)>& fn);
// Formats a scalar for string concatenation ("a" + 1 -> "a1").
std::string ToText(const Value& v);

}  // namespace internal
}  // namespace sluice::expr

#endif  // SLUICE_COMMON_EXPR_ACCESS_H_
