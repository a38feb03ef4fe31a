#include "common/expr/access.h"

#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace sluice::expr::internal {

namespace pb = google::protobuf;
using FieldRef = ValueAccess::FieldRef;

namespace {

// protoc's Java generator (UnderscoresToCamelCase with a capital first letter):
// letters after '_' or a digit are upper-cased, '_' dropped. foo_bar -> FooBar.
std::string JavaCamel(absl::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool cap_next = true;
  for (char c : name) {
    if (c >= 'a' && c <= 'z') {
      out.push_back(cap_next ? static_cast<char>(c - 'a' + 'A') : c);
      cap_next = false;
    } else if (c >= 'A' && c <= 'Z') {
      out.push_back(c);
      cap_next = false;
    } else if (c >= '0' && c <= '9') {
      out.push_back(c);
      cap_next = true;
    } else {
      cap_next = true;
    }
  }
  return out;
}

const pb::FieldDescriptor* FindByJavaName(const pb::Descriptor* type, absl::string_view camel) {
  for (int i = 0; i < type->field_count(); ++i) {
    const pb::FieldDescriptor* f = type->field(i);
    if (JavaCamel(f->name()) == camel) return f;
  }
  return nullptr;
}

bool HasPresence(const pb::FieldDescriptor* f) {
  return !f->is_repeated() && (f->message_type() != nullptr || f->has_presence());
}

absl::StatusOr<ResolvedField> Check(const pb::FieldDescriptor* f, FieldAccess access,
                                    absl::string_view name, int nargs) {
  int want = access == FieldAccess::kElement ? 1 : 0;
  if (nargs > want || (nargs >= 0 && nargs != want)) {
    return absl::InvalidArgumentError(absl::StrCat("'", name, "' takes ", want, " argument",
                                                   want == 1 ? "" : "s", ", got ", nargs));
  }
  return ResolvedField{f, access};
}

Value ReadScalar(const pb::Message& m, const pb::FieldDescriptor* f) {
  const pb::Reflection* r = m.GetReflection();
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32: return Value::Int(r->GetInt32(m, f));
    case pb::FieldDescriptor::CPPTYPE_INT64: return Value::Int(r->GetInt64(m, f));
    case pb::FieldDescriptor::CPPTYPE_UINT32: return Value::Int(r->GetUInt32(m, f));
    case pb::FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t u = r->GetUInt64(m, f);
      if (u <= static_cast<uint64_t>(INT64_MAX)) return Value::Int(static_cast<int64_t>(u));
      return Value::Double(static_cast<double>(u));
    }
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: return Value::Double(r->GetDouble(m, f));
    case pb::FieldDescriptor::CPPTYPE_FLOAT: return Value::Double(r->GetFloat(m, f));
    case pb::FieldDescriptor::CPPTYPE_BOOL: return Value::Bool(r->GetBool(m, f));
    case pb::FieldDescriptor::CPPTYPE_ENUM: return Value::StringView(r->GetEnum(m, f)->name());
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      // The reference points into the message unless the field needs a scratch
      // copy (e.g. cords): borrow when we can, copy otherwise.
      std::string scratch;
      const std::string& s = r->GetStringReference(m, f, &scratch);
      if (&s == &scratch) return Value::String(std::move(scratch));
      return Value::StringView(s);
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE: return Value::Message(&r->GetMessage(m, f));
  }
  return Value();
}

}  // namespace

absl::StatusOr<ResolvedField> ResolveField(const pb::Descriptor* type, absl::string_view name,
                                           int nargs) {
  if (const pb::FieldDescriptor* f = type->FindFieldByName(std::string(name))) {
    return Check(f, FieldAccess::kValue, name, nargs);
  }
  auto starts_upper = [&](size_t n) {
    return name.size() > n && name[n] >= 'A' && name[n] <= 'Z';
  };
  if (absl::StartsWith(name, "get") && starts_upper(3)) {
    absl::string_view rest = name.substr(3);
    if (const pb::FieldDescriptor* f = FindByJavaName(type, rest)) {
      if (f->is_repeated() && !f->is_map() && nargs == 1) {
        return Check(f, FieldAccess::kElement, name, nargs);
      }
      return Check(f, FieldAccess::kValue, name, nargs);
    }
    struct Suffix {
      absl::string_view text;
      FieldAccess access;
    };
    for (const Suffix& s : {Suffix{"List", FieldAccess::kValue}, Suffix{"Map", FieldAccess::kValue},
                            Suffix{"Count", FieldAccess::kCount},
                            Suffix{"Value", FieldAccess::kEnumNumber}}) {
      if (!absl::EndsWith(rest, s.text)) continue;
      const pb::FieldDescriptor* f =
          FindByJavaName(type, rest.substr(0, rest.size() - s.text.size()));
      if (f == nullptr) continue;
      bool fits = (s.text == "List" && f->is_repeated() && !f->is_map()) ||
                  (s.text == "Map" && f->is_map()) || (s.text == "Count" && f->is_repeated()) ||
                  (s.text == "Value" && !f->is_repeated() &&
                   f->cpp_type() == pb::FieldDescriptor::CPPTYPE_ENUM);
      if (fits) return Check(f, s.access, name, nargs);
    }
  }
  if (absl::StartsWith(name, "has") && starts_upper(3)) {
    const pb::FieldDescriptor* f = FindByJavaName(type, name.substr(3));
    if (f != nullptr && HasPresence(f)) return Check(f, FieldAccess::kHas, name, nargs);
  }
  if (const pb::FieldDescriptor* f = type->FindFieldByCamelcaseName(std::string(name))) {
    return Check(f, FieldAccess::kValue, name, nargs);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown field '", name, "' in message type ", type->full_name()));
}

Value ReadField(const pb::Message& m, const ResolvedField& f) {
  const pb::Reflection* r = m.GetReflection();
  switch (f.access) {
    case FieldAccess::kCount: return Value::Int(r->FieldSize(m, f.field));
    case FieldAccess::kHas: return Value::Bool(r->HasField(m, f.field));
    case FieldAccess::kEnumNumber: return Value::Int(r->GetEnumValue(m, f.field));
    case FieldAccess::kElement:  // needs an index: the evaluator handles it
    case FieldAccess::kValue: break;
  }
  if (f.field->is_repeated()) return Value::ProtoField(&m, f.field);
  return ReadScalar(m, f.field);
}

Value ReadRepeated(const pb::Message& m, const pb::FieldDescriptor* f, int i) {
  const pb::Reflection* r = m.GetReflection();
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32: return Value::Int(r->GetRepeatedInt32(m, f, i));
    case pb::FieldDescriptor::CPPTYPE_INT64: return Value::Int(r->GetRepeatedInt64(m, f, i));
    case pb::FieldDescriptor::CPPTYPE_UINT32: return Value::Int(r->GetRepeatedUInt32(m, f, i));
    case pb::FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t u = r->GetRepeatedUInt64(m, f, i);
      if (u <= static_cast<uint64_t>(INT64_MAX)) return Value::Int(static_cast<int64_t>(u));
      return Value::Double(static_cast<double>(u));
    }
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: return Value::Double(r->GetRepeatedDouble(m, f, i));
    case pb::FieldDescriptor::CPPTYPE_FLOAT: return Value::Double(r->GetRepeatedFloat(m, f, i));
    case pb::FieldDescriptor::CPPTYPE_BOOL: return Value::Bool(r->GetRepeatedBool(m, f, i));
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      return Value::StringView(r->GetRepeatedEnum(m, f, i)->name());
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& s = r->GetRepeatedStringReference(m, f, i, &scratch);
      if (&s == &scratch) return Value::String(std::move(scratch));
      return Value::StringView(s);
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      return Value::Message(&r->GetRepeatedMessage(m, f, i));
  }
  return Value();
}

absl::StatusOr<ResolvedField> FieldCache::Resolve(const pb::Descriptor* type,
                                                  absl::string_view name, int nargs) const {
  const Entry* e = last_.load(std::memory_order_acquire);
  if (e != nullptr && e->type == type) return e->resolved;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& entry : entries_) {
    if (entry->type == type) {
      last_.store(entry.get(), std::memory_order_release);
      return entry->resolved;
    }
  }
  absl::StatusOr<ResolvedField> r = ResolveField(type, name, nargs);
  if (r.ok() && entries_.size() < kMaxEntries) {
    entries_.push_back(std::make_unique<Entry>(Entry{type, *r}));
    last_.store(entries_.back().get(), std::memory_order_release);
  }
  return r;
}

namespace {

// Looks up `key` in proto map field `f` (linear: reflection has no public
// keyed lookup). String keys also match integer/bool map keys by their text.
Value ProtoMapFind(const FieldRef& f, const Value& key) {
  const pb::Reflection* r = f.message->GetReflection();
  int n = r->FieldSize(*f.message, f.field);
  for (int i = 0; i < n; ++i) {
    const pb::Message& entry = r->GetRepeatedMessage(*f.message, f.field, i);
    const pb::Descriptor* d = entry.GetDescriptor();
    Value k = ReadScalar(entry, d->map_key());
    bool match = k == key || (key.kind() == Value::Kind::kString &&
                              k.kind() != Value::Kind::kString && ToText(k) == key.string_value());
    if (match) return ReadField(entry, {d->map_value(), FieldAccess::kValue});
  }
  return Value();
}

absl::Status TypeError(absl::string_view what, const Value& a) {
  return absl::InvalidArgumentError(absl::StrCat(what, " ", a.kind_name()));
}

}  // namespace

namespace {

// "DriverId" -> "driverId", "driver_id", "DriverId".
std::vector<std::string> GetterKeys(absl::string_view rest) {
  std::string camel(rest);
  camel[0] = absl::ascii_tolower(camel[0]);
  std::string snake;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (absl::ascii_isupper(rest[i]) && i > 0) snake.push_back('_');
    snake.push_back(absl::ascii_tolower(rest[i]));
  }
  return {camel, snake, std::string(rest)};
}

// The first of `keys` present in `map` (a JSON object or owned map), or null.
const Value* FindFirst(const Value& map, const std::vector<std::string>& keys, Value* slot) {
  for (const std::string& k : keys) {
    if (const nlohmann::json* j = map.json()) {
      auto it = j->find(k);
      if (it == j->end()) continue;
      *slot = Value::Json(&*it);
      return slot;
    }
    const Value::Map& owned = *ValueAccess::owned_map(map);
    auto it = owned.find(k);
    if (it != owned.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace

std::optional<Value> MapGetter(const Value& map, absl::string_view method) {
  if (map.kind() != Value::Kind::kMap || map.message() != nullptr ||
      ValueAccess::field_ref(map) != nullptr) {
    return std::nullopt;
  }
  bool get = absl::StartsWith(method, "get");
  if ((!get && !absl::StartsWith(method, "has")) || method.size() < 4 ||
      !absl::ascii_isupper(method[3])) {
    return std::nullopt;
  }
  absl::string_view rest = method.substr(3);
  Value slot;
  const Value* hit = FindFirst(map, GetterKeys(rest), &slot);
  if (!get) return Value::Bool(hit != nullptr && !hit->is_null());
  if (hit != nullptr) return *hit;
  for (absl::string_view suffix : {"List", "Map", "Count"}) {
    if (rest.size() <= suffix.size() || !absl::EndsWith(rest, suffix)) continue;
    hit = FindFirst(map, GetterKeys(rest.substr(0, rest.size() - suffix.size())), &slot);
    if (hit == nullptr) continue;
    if (suffix != "Count") return *hit;
    if (hit->kind() == Value::Kind::kList || hit->kind() == Value::Kind::kMap) {
      return Value::Int(static_cast<int64_t>(hit->size()));
    }
  }
  return Value();
}

absl::StatusOr<Value> Index(const Value& c, const Value& key) {
  switch (c.kind()) {
    case Value::Kind::kList: {
      if (key.kind() != Value::Kind::kInt) {
        return absl::InvalidArgumentError(
            absl::StrCat("list index must be an int, got ", key.kind_name()));
      }
      int64_t i = key.int_value();
      int64_t n = static_cast<int64_t>(c.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) {
        return absl::OutOfRangeError(
            absl::StrCat("index ", key.int_value(), " out of range (size ", n, ")"));
      }
      return c.Element(static_cast<size_t>(i));
    }
    case Value::Kind::kMap: {
      if (const FieldRef* f = ValueAccess::field_ref(c)) return ProtoMapFind(*f, key);
      if (key.kind() != Value::Kind::kString) {
        return absl::InvalidArgumentError(
            absl::StrCat("map key must be a string, got ", key.kind_name()));
      }
      absl::string_view k = key.string_value();
      if (const pb::Message* m = c.message()) {
        absl::StatusOr<ResolvedField> f = ResolveField(m->GetDescriptor(), k, -1);
        if (!f.ok()) return f.status();
        return ReadField(*m, *f);
      }
      if (const nlohmann::json* j = c.json()) {
        auto it = j->find(std::string_view(k.data(), k.size()));
        if (it == j->end()) return Value();
        return Value::Json(&*it);
      }
      const Value::Map& map = *ValueAccess::owned_map(c);
      auto it = map.find(std::string_view(k.data(), k.size()));
      if (it == map.end()) return Value();
      return it->second;
    }
    default:
      return TypeError("cannot index", c);
  }
}

void ForEachElement(const Value& list, const std::function<bool(const Value&)>& fn) {
  if (const Value::List* l = ValueAccess::owned_list(list)) {
    for (const Value& v : *l) {
      if (!fn(v)) return;
    }
    return;
  }
  if (const nlohmann::json* j = list.json()) {
    if (!j->is_array()) return;
    for (const nlohmann::json& e : *j) {
      if (!fn(Value::Json(&e))) return;
    }
    return;
  }
  if (const FieldRef* f = ValueAccess::field_ref(list)) {
    if (f->field->is_map()) return;
    int n = f->message->GetReflection()->FieldSize(*f->message, f->field);
    for (int i = 0; i < n; ++i) {
      if (!fn(ReadRepeated(*f->message, f->field, i))) return;
    }
  }
}

absl::StatusOr<bool> Contains(const Value& c, const Value& item) {
  switch (c.kind()) {
    case Value::Kind::kString:
      if (item.kind() != Value::Kind::kString) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot search a string for a ", item.kind_name()));
      }
      return absl::StrContains(c.string_value(), item.string_value());
    case Value::Kind::kList: {
      bool found = false;
      ForEachElement(c, [&](const Value& e) {
        found = e == item;
        return !found;
      });
      return found;
    }
    case Value::Kind::kMap: {
      if (const FieldRef* f = ValueAccess::field_ref(c)) {
        const pb::Reflection* r = f->message->GetReflection();
        int n = r->FieldSize(*f->message, f->field);
        for (int i = 0; i < n; ++i) {
          const pb::Message& entry = r->GetRepeatedMessage(*f->message, f->field, i);
          Value k = ReadScalar(entry, entry.GetDescriptor()->map_key());
          if (k == item || (item.kind() == Value::Kind::kString &&
                            k.kind() != Value::Kind::kString && ToText(k) == item.string_value())) {
            return true;
          }
        }
        return false;
      }
      if (item.kind() != Value::Kind::kString) {
        return absl::InvalidArgumentError(
            absl::StrCat("map key must be a string, got ", item.kind_name()));
      }
      absl::string_view k = item.string_value();
      if (const pb::Message* m = c.message()) {
        return ResolveField(m->GetDescriptor(), k, -1).ok();
      }
      std::string_view sk(k.data(), k.size());
      if (const nlohmann::json* j = c.json()) return j->find(sk) != j->end();
      const Value::Map& map = *ValueAccess::owned_map(c);
      return map.find(sk) != map.end();
    }
    default:
      return TypeError("cannot search in", c);
  }
}

absl::StatusOr<int> Compare(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind() == Value::Kind::kInt && b.kind() == Value::Kind::kInt) {
      return a.int_value() < b.int_value() ? -1 : (a.int_value() > b.int_value() ? 1 : 0);
    }
    double x = a.number_value(), y = b.number_value();
    if (std::isnan(x) || std::isnan(y)) return 2;  // unordered
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.kind() == Value::Kind::kString && b.kind() == Value::Kind::kString) {
    int c = a.string_value().compare(b.string_value());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot compare ", a.kind_name(), " with ", b.kind_name()));
}

std::string ToText(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull: return "null";
    case Value::Kind::kBool: return v.bool_value() ? "true" : "false";
    case Value::Kind::kInt: return absl::StrCat(v.int_value());
    case Value::Kind::kDouble: return nlohmann::json(v.number_value()).dump();
    case Value::Kind::kString: return std::string(v.string_value());
    default: return v.DebugString();
  }
}

}  // namespace sluice::expr::internal
