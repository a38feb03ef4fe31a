// The helpers both halves of the sprig function table use, and the table's
// entry point. The functions themselves are in sprig_strings.cc and
// sprig_lists.cc.
#include "common/gotemplate/sprig.h"

namespace sluice::gotemplate {
namespace sprig {

absl::Status Err(const std::string& m) { return absl::InvalidArgumentError(m); }

const std::string& Str(const Value& v) { return v.j.get_ref<const std::string&>(); }
int64_t IntOf(const Value& v) { return v.j.get<int64_t>(); }

absl::Status CheckSize(size_t n, const FuncLimits& l) {
  if (n > l.max_bytes) return absl::ResourceExhaustedError("function result too large");
  return absl::OkStatus();
}

bool IsNilV(const Value& v) { return !v.valid() || v.type == GoType::kNilIface; }

// sprig's strslice: []string as is, []interface{} as strval of each non-nil.
std::vector<std::string> StrSlice(const Value& v0) {
  Value v = v0.Deref();
  std::vector<std::string> out;
  switch (v.type) {
    case GoType::kStringSlice:
      for (const auto& e : v.j) out.push_back(e.get<std::string>());
      return out;
    case GoType::kAnySlice:
      for (const auto& e : v.j) {
        if (!e.is_null()) out.push_back(StrVal(Value::FromJson(e)));
      }
      return out;
    case GoType::kInvalid: case GoType::kNilIface:
      return out;
    default:
      out.push_back(StrVal(v));
      return out;
  }
}

Value StringSlice(const std::vector<std::string>& v) {
  return Value{GoType::kStringSlice, nlohmann::json(v)};
}

// A value stored back into JSON (a list or dict element).
nlohmann::json ToJson(const Value& v0) {
  Value v = v0.Deref();
  if (IsNilV(v)) return nullptr;
  return v.j;
}

void Add(std::map<std::string, Func>* t, const std::string& name, std::vector<Param> params, bool variadic,
         FuncImpl f) {
  (*t)[name] = Func{std::move(params), variadic, std::move(f)};
}

}  // namespace sprig

void AddSprigFuncs(std::map<std::string, Func>* t) {
  sprig::AddStringFuncs(t);
  sprig::AddListFuncs(t);
}

}  // namespace sluice::gotemplate
