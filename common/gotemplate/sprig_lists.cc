// sprig's defaults and flow, list and dict, and number functions.
#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/gotemplate/sprig.h"

namespace sluice::gotemplate::sprig {
namespace {

// Counts the nodes of `j` up to `*budget` and its depth up to kMaxDepth;
// false when either runs out. Lists and dicts built in a loop
// ({{$x = list $x $x}}) would otherwise grow exponentially, and deep nesting
// would overflow the printer's recursion.
constexpr int kMaxDepth = 500;
bool WithinBudget(const nlohmann::json& j, int64_t* budget, int depth) {
  if (--*budget < 0 || depth > kMaxDepth) return false;
  if (j.is_array() || j.is_object()) {
    for (const auto& e : j) {
      if (!WithinBudget(e, budget, depth + 1)) return false;
    }
  }
  return true;
}

absl::StatusOr<Value> Bounded(Value v, const FuncLimits& l) {
  int64_t budget = static_cast<int64_t>(l.max_bytes / 8);
  if (!WithinBudget(v.j, &budget, 0)) {
    return absl::ResourceExhaustedError("function result too large or too deeply nested");
  }
  return v;
}

// sprig's empty(): nil, zero numbers, false, empty string/slice/map.
bool Empty(const Value& v0) {
  if (IsNilV(v0)) return true;
  if (v0.type == GoType::kRootPtr) return false;  // a non-nil pointer
  return !IsTrue(v0);
}

// spf13/cast ToInt64 (v1.5.0), as sprig's toInt64.
int64_t ToInt64(const Value& v0) {
  Value v = v0.Unwrapped();
  switch (v.type) {
    case GoType::kInt: case GoType::kInt64: return IntOf(v);
    case GoType::kFloat64: {
      double d = v.j.get<double>();
      if (std::isnan(d) || d >= 9.2233720368547758e18 || d < -9.2233720368547758e18) return INT64_MIN;
      return static_cast<int64_t>(d);
    }
    case GoType::kBool: return v.j.get<bool>() ? 1 : 0;
    case GoType::kString: {
      std::string s = Str(v);
      // trimZeroDecimal: "12.000" -> "12"
      size_t dot = s.find('.');
      if (dot != std::string::npos && dot > 0 &&
          s.find_first_not_of('0', dot + 1) == std::string::npos) {
        s = s.substr(0, dot);
      }
      if (s.empty()) return 0;
      bool neg = s[0] == '-';
      size_t p = (s[0] == '-' || s[0] == '+') ? 1 : 0;
      int base = 10;
      if (s.size() > p + 1 && s[p] == '0') {
        char c = s[p + 1];
        if (c == 'x' || c == 'X') { base = 16; p += 2; }
        else if (c == 'o' || c == 'O') { base = 8; p += 2; }
        else if (c == 'b' || c == 'B') { base = 2; p += 2; }
        else { base = 8; p += 1; }
      }
      if (p >= s.size()) return base == 8 ? 0 : 0;
      uint64_t acc = 0;
      for (size_t i = p; i < s.size(); ++i) {
        char c = s[i];
        if (c == '_') continue;
        int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : 99;
        if (d >= base) return 0;
        acc = acc * base + d;
        if (acc > static_cast<uint64_t>(INT64_MAX) + 1) return 0;
      }
      if (!neg && acc > static_cast<uint64_t>(INT64_MAX)) return 0;
      return neg ? static_cast<int64_t>(0 - acc) : static_cast<int64_t>(acc);
    }
    default: return 0;
  }
}

double ToFloat64(const Value& v0) {
  Value v = v0.Unwrapped();
  switch (v.type) {
    case GoType::kInt: case GoType::kInt64: return static_cast<double>(IntOf(v));
    case GoType::kFloat64: return v.j.get<double>();
    case GoType::kBool: return v.j.get<bool>() ? 1 : 0;
    case GoType::kString: {
      const std::string& s = Str(v);
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (s.empty() || end == nullptr || *end != '\0' || s.find_first_of("xXpPnNiI") != std::string::npos) return 0;
      return d;
    }
    default: return 0;
  }
}

}  // namespace

void AddListFuncs(std::map<std::string, Func>* t) {
  const Param A = Param::kAny, S = Param::kString, B = Param::kBool, M = Param::kMap;
  // defaults and flow
  Add(t, "default", {A, A}, true, [](Args& a, const FuncLimits&) -> R {
    if (a.size() < 2 || Empty(a[1])) return a[0];
    return a[1];
  });
  Add(t, "empty", {A}, false, [](Args& a, const FuncLimits&) -> R { return Value::Bool(Empty(a[0])); });
  Add(t, "coalesce", {A}, true, [](Args& a, const FuncLimits&) -> R {
    for (const auto& v : a) {
      if (!Empty(v)) return v;
    }
    return Value::Invalid();
  });
  Add(t, "ternary", {A, A, B}, false, [](Args& a, const FuncLimits&) -> R {
    return a[2].j.get<bool>() ? a[0] : a[1];
  });
  Add(t, "toJson", {A}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::String(MarshalJson(ToJson(a[0])));
  });
  Add(t, "toPrettyJson", {A}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::String(MarshalJson(ToJson(a[0]), "  "));
  });

  // lists and dicts
  Add(t, "list", {A}, true, [](Args& a, const FuncLimits& lim) -> R {
    nlohmann::json l = nlohmann::json::array();
    for (const auto& v : a) l.push_back(ToJson(v));
    return Bounded(Value{GoType::kAnySlice, std::move(l)}, lim);
  });
  Add(t, "dict", {A}, true, [](Args& a, const FuncLimits& lim) -> R {
    nlohmann::json m = nlohmann::json::object();
    for (size_t i = 0; i < a.size(); i += 2) {
      m[StrVal(a[i])] = i + 1 < a.size() ? ToJson(a[i + 1]) : nlohmann::json("");
    }
    return Bounded(Value{GoType::kMap, std::move(m)}, lim);
  });
  Add(t, "hasKey", {M, S}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::Bool(a[0].j.contains(Str(a[1])));
  });
  Add(t, "get", {M, S}, false, [](Args& a, const FuncLimits&) -> R {
    auto it = a[0].j.find(Str(a[1]));
    if (it == a[0].j.end()) return Value::String("");
    return Value::FromJson(*it);
  });
  Add(t, "keys", {M}, true, [](Args& a, const FuncLimits&) -> R {
    std::vector<std::string> k;
    for (const auto& m : a) {
      for (const auto& [key, v] : m.j.items()) k.push_back(key);
    }
    return StringSlice(k);  // Go's order is random; callers sort (keys ... | sortAlpha)
  });
  auto first_last = [](Args& a, bool first) -> R {
    Value v = a[0].Deref();
    if (v.type != GoType::kAnySlice && v.type != GoType::kStringSlice) {
      return Err("Cannot find " + std::string(first ? "first" : "last") + " on type " + GoTypeName(v));
    }
    if (v.j.empty()) return Value::Invalid();
    const auto& e = first ? v.j.front() : v.j.back();
    return v.type == GoType::kStringSlice ? Value::String(e.get<std::string>()) : Value::FromJson(e);
  };
  // sprig's slice replaces text/template's builtin (Funcs win over builtins).
  Add(t, "slice", {A, A}, true, [](Args& a, const FuncLimits&) -> R {
    Value l = a[0].Deref();
    if (l.type != GoType::kAnySlice && l.type != GoType::kStringSlice) {
      return Err("list should be type of slice or array but " +
                 std::string(IsNilV(l) ? "invalid" : l.is_string() ? "string" : l.type == GoType::kMap ||
                             l.type == GoType::kStringMap ? "map" : l.type == GoType::kRootPtr ? "ptr" : GoTypeName(l)));
    }
    int64_t n = static_cast<int64_t>(l.j.size());
    if (n == 0) return Value::Invalid();
    int64_t start = a.size() > 1 ? ToInt64(a[1]) : 0;
    int64_t end = a.size() > 2 ? ToInt64(a[2]) : n;
    if (start < 0 || end < start || end > n) {
      return Err(absl::StrCat("reflect: slice index out of range"));
    }
    nlohmann::json out = nlohmann::json::array();
    for (int64_t i = start; i < end; ++i) out.push_back(l.j[i]);
    return Value{l.type, out};
  });
  Add(t, "first", {A}, false, [first_last](Args& a, const FuncLimits&) { return first_last(a, true); });
  Add(t, "last", {A}, false, [first_last](Args& a, const FuncLimits&) { return first_last(a, false); });

  // numbers
  Add(t, "add", {A}, true, [](Args& a, const FuncLimits&) -> R {
    int64_t s = 0;
    for (const auto& v : a) s = static_cast<int64_t>(static_cast<uint64_t>(s) + static_cast<uint64_t>(ToInt64(v)));
    return Value::Int64(s);
  });
  Add(t, "add1", {A}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::Int64(static_cast<int64_t>(static_cast<uint64_t>(ToInt64(a[0])) + 1));
  });
  Add(t, "mul", {A, A}, true, [](Args& a, const FuncLimits&) -> R {
    uint64_t p = static_cast<uint64_t>(ToInt64(a[0]));
    for (size_t i = 1; i < a.size(); ++i) p *= static_cast<uint64_t>(ToInt64(a[i]));
    return Value::Int64(static_cast<int64_t>(p));
  });
  auto divmod = [](Args& a, bool div) -> R {
    int64_t x = ToInt64(a[0]), y = ToInt64(a[1]);
    if (y == 0) return Err("runtime error: integer divide by zero");
    if (x == INT64_MIN && y == -1) return Value::Int64(div ? INT64_MIN : 0);
    return Value::Int64(div ? x / y : x % y);
  };
  Add(t, "div", {A, A}, false, [divmod](Args& a, const FuncLimits&) { return divmod(a, true); });
  Add(t, "mod", {A, A}, false, [divmod](Args& a, const FuncLimits&) { return divmod(a, false); });
  Add(t, "max", {A, A}, true, [](Args& a, const FuncLimits&) -> R {
    int64_t m = ToInt64(a[0]);
    for (size_t i = 1; i < a.size(); ++i) m = std::max(m, ToInt64(a[i]));
    return Value::Int64(m);
  });
  Add(t, "min", {A, A}, true, [](Args& a, const FuncLimits&) -> R {
    int64_t m = ToInt64(a[0]);
    for (size_t i = 1; i < a.size(); ++i) m = std::min(m, ToInt64(a[i]));
    return Value::Int64(m);
  });
  Add(t, "int", {A}, false, [](Args& a, const FuncLimits&) -> R { return Value::Int(ToInt64(a[0])); });
  Add(t, "int64", {A}, false, [](Args& a, const FuncLimits&) -> R { return Value::Int64(ToInt64(a[0])); });
  Add(t, "float64", {A}, false, [](Args& a, const FuncLimits&) -> R { return Value::Float(ToFloat64(a[0])); });
  Add(t, "atoi", {S}, false, [](Args& a, const FuncLimits&) -> R {
    const std::string& s = Str(a[0]);
    size_t p = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (p == s.size() || s.size() > 19 || !std::all_of(s.begin() + p, s.end(), absl::ascii_isdigit)) {
      return Value::Int(0);
    }
    return Value::Int(std::stoll(s));
  });
}

}  // namespace sluice::gotemplate::sprig
