// The sprig v3.2.3 functions Siren's templates and docs use, and Siren's
// own additions (Siren core/template/mapper.go), with Go's parameter types
// so that argument errors match. Case mapping is ASCII only.
#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/gotemplate/funcs.h"
#include "re2/re2.h"

namespace sluice::gotemplate {
namespace {

using Args = std::vector<Value>;
using R = absl::StatusOr<Value>;
absl::Status Err(const std::string& m) { return absl::InvalidArgumentError(m); }

const std::string& Str(const Value& v) { return v.j.get_ref<const std::string&>(); }
int64_t IntOf(const Value& v) { return v.j.get<int64_t>(); }

absl::Status CheckSize(size_t n, const FuncLimits& l) {
  if (n > l.max_bytes) return absl::ResourceExhaustedError("function result too large");
  return absl::OkStatus();
}

bool IsNilV(const Value& v) { return !v.valid() || v.type == GoType::kNilIface; }

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

std::string Upper(std::string s) { return absl::AsciiStrToUpper(s); }
std::string Lower(std::string s) { return absl::AsciiStrToLower(s); }

// cases.Title(language.AmericanEnglish): the first letter of each word upper,
// the rest lower; a word starts after a character that is not a letter,
// digit, apostrophe or underscore-like joiner.
std::string Title(const std::string& s) {
  std::string out;
  bool seen_letter = false;  // in this word
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool letter = absl::ascii_isalpha(c) || static_cast<unsigned char>(c) >= 0x80;
    if (letter) {
      out.push_back(seen_letter ? absl::ascii_tolower(c) : absl::ascii_toupper(c));
      seen_letter = true;
      continue;
    }
    out.push_back(c);
    // Digits, '_' and apostrophes stay inside a word; the first letter of a
    // word is the one upper-cased ("3rd" -> "3Rd", "a_b" -> "A_b").
    if (!(absl::ascii_isdigit(c) || c == '_' || c == '\'')) seen_letter = false;
  }
  return out;
}

std::string Replace(const std::string& s, const std::string& old, const std::string& repl) {
  if (old.empty()) {
    // strings.Replace with an empty old inserts at every rune boundary.
    std::string out = repl;
    for (size_t i = 0; i < s.size();) {
      size_t len = 1;
      unsigned char c = s[i];
      if (c >= 0xf0) len = 4; else if (c >= 0xe0) len = 3; else if (c >= 0xc0) len = 2;
      out.append(s, i, len);
      out += repl;
      i += len;
    }
    return out;
  }
  return absl::StrReplaceAll(s, {{old, repl}});
}

std::string TrimCutset(const std::string& s, const std::string& cutset, bool left, bool right) {
  size_t b = 0, e = s.size();
  if (left) while (b < e && cutset.find(s[b]) != std::string::npos) ++b;
  if (right) while (e > b && cutset.find(s[e - 1]) != std::string::npos) --e;
  return s.substr(b, e - b);
}

// Go regexp.ReplaceAllString template: $1, ${1}, ${name}, $$ expand.
std::string ExpandGoTemplate(const std::string& repl) {
  std::string out;
  for (size_t i = 0; i < repl.size(); ++i) {
    char c = repl[i];
    if (c == '\\') {
      out += "\\\\";
      continue;
    }
    if (c != '$' || i + 1 >= repl.size()) {
      out.push_back(c);
      continue;
    }
    if (repl[i + 1] == '$') {
      out.push_back('$');
      ++i;
      continue;
    }
    std::string name;
    size_t j = i + 1;
    if (repl[j] == '{') {
      size_t close = repl.find('}', j);
      if (close == std::string::npos) {
        out.push_back(c);
        continue;
      }
      name = repl.substr(j + 1, close - j - 1);
      j = close + 1;
    } else {
      while (j < repl.size() && (absl::ascii_isalnum(repl[j]) || repl[j] == '_')) name.push_back(repl[j++]);
    }
    if (name.empty()) {
      out.push_back(c);
      continue;
    }
    if (std::all_of(name.begin(), name.end(), absl::ascii_isdigit) && name.size() == 1) {
      out += "\\" + name;
    }  // named/multi-digit groups: expand to nothing (as Go does for unknown names)
    i = j - 1;
  }
  return out;
}

absl::StatusOr<std::unique_ptr<RE2>> Compile(const std::string& pattern) {
  RE2::Options o;
  o.set_log_errors(false);
  auto re = std::make_unique<RE2>(pattern, o);
  if (!re->ok()) return Err("error parsing regexp: " + re->error());
  return re;
}

void Add(std::map<std::string, Func>* t, const std::string& name, std::vector<Param> params, bool variadic,
         FuncImpl f) {
  (*t)[name] = Func{std::move(params), variadic, std::move(f)};
}

}  // namespace

void AddSprigFuncs(std::map<std::string, Func>* t) {
  const Param A = Param::kAny, S = Param::kString, I = Param::kInt, B = Param::kBool, SS = Param::kStringSlice,
              M = Param::kMap;
  auto str1 = [t](const std::string& name, std::string (*f)(std::string)) {
    Add(t, name, {Param::kString}, false,
        [f](Args& a, const FuncLimits&) -> R { return Value::String(f(Str(a[0]))); });
  };
  // Siren's extras (override sprig's title/join/sub).
  str1("toUpper", Upper);
  str1("toLower", Lower);
  str1("upper", Upper);
  str1("lower", Lower);
  Add(t, "title", {S}, false, [](Args& a, const FuncLimits&) -> R { return Value::String(Title(Str(a[0]))); });
  Add(t, "join", {S, SS}, false, [](Args& a, const FuncLimits& l) -> R {
    std::vector<std::string> parts;
    for (const auto& e : a[1].j) parts.push_back(e.get<std::string>());
    std::string out = absl::StrJoin(parts, Str(a[0]));
    if (auto st = CheckSize(out.size(), l); !st.ok()) return st;
    return Value::String(out);
  });
  Add(t, "match", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    auto re = Compile(Str(a[0]));
    if (!re.ok()) return re.status();
    return Value::Bool(RE2::PartialMatch(Str(a[1]), **re));
  });
  Add(t, "reReplaceAll", {S, S, S}, false, [](Args& a, const FuncLimits& l) -> R {
    auto re = Compile(Str(a[0]));
    if (!re.ok()) return absl::InvalidArgumentError("regexp: Compile(" + Str(a[0]) + "): " +
                                                    std::string(re.status().message()));
    std::string s = Str(a[2]);
    RE2::GlobalReplace(&s, **re, ExpandGoTemplate(Str(a[1])));
    if (auto st = CheckSize(s.size(), l); !st.ok()) return st;
    return Value::String(s);
  });
  Add(t, "stringSlice", {S}, true, [](Args& a, const FuncLimits&) -> R {
    std::vector<std::string> v;
    for (const auto& e : a) v.push_back(Str(e));
    return StringSlice(v);
  });
  Add(t, "sub", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    auto parse = [](const std::string& s, int64_t* out) {
      if (s.empty()) return false;
      size_t p = (s[0] == '-' || s[0] == '+') ? 1 : 0;
      if (p == s.size()) return false;
      __int128 acc = 0;
      for (size_t i = p; i < s.size(); ++i) {
        if (!absl::ascii_isdigit(s[i])) return false;
        acc = acc * 10 + (s[i] - '0');
        if (acc > static_cast<__int128>(INT64_MAX) + 1) return false;
      }
      if (s[0] == '-') acc = -acc;
      if (acc > INT64_MAX || acc < INT64_MIN) return false;
      *out = static_cast<int64_t>(acc);
      return true;
    };
    int64_t x, y;
    if (!parse(Str(a[0]), &x) || !parse(Str(a[1]), &y)) return Value::String("unknown");
    return Value::String(std::to_string(static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y))));
  });

  // sprig strings
  Add(t, "trim", {S}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::String(TrimCutset(Str(a[0]), " \t\n\r\v\f", true, true));
  });
  Add(t, "trimAll", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::String(TrimCutset(Str(a[1]), Str(a[0]), true, true));
  });
  Add(t, "trimPrefix", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    std::string s = Str(a[1]);
    if (absl::StartsWith(s, Str(a[0]))) s = s.substr(Str(a[0]).size());
    return Value::String(s);
  });
  Add(t, "trimSuffix", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    std::string s = Str(a[1]);
    if (absl::EndsWith(s, Str(a[0]))) s = s.substr(0, s.size() - Str(a[0]).size());
    return Value::String(s);
  });
  Add(t, "replace", {S, S, S}, false, [](Args& a, const FuncLimits& l) -> R {
    if (Str(a[0]).empty() && Str(a[2]).size() * (Str(a[1]).size() + 1) > l.max_bytes) {
      return absl::ResourceExhaustedError("function result too large");
    }
    std::string out = Replace(Str(a[2]), Str(a[0]), Str(a[1]));
    if (auto st = CheckSize(out.size(), l); !st.ok()) return st;
    return Value::String(out);
  });
  Add(t, "contains", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::Bool(Str(a[1]).find(Str(a[0])) != std::string::npos);
  });
  Add(t, "hasPrefix", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::Bool(absl::StartsWith(Str(a[1]), Str(a[0])));
  });
  Add(t, "hasSuffix", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::Bool(absl::EndsWith(Str(a[1]), Str(a[0])));
  });
  Add(t, "repeat", {I, S}, false, [](Args& a, const FuncLimits& l) -> R {
    int64_t n = IntOf(a[0]);
    if (n < 0) return Err("strings: negative Repeat count");
    if (static_cast<double>(n) * Str(a[1]).size() > l.max_bytes) {
      return absl::ResourceExhaustedError("function result too large");
    }
    std::string out;
    for (int64_t i = 0; i < n; ++i) out += Str(a[1]);
    return Value::String(out);
  });
  auto indent = [](Args& a, const FuncLimits& l, bool newline) -> R {
    int64_t n = IntOf(a[0]);
    const std::string& s = Str(a[1]);
    if (n < 0) return Err("strings: negative Repeat count");
    size_t lines = std::count(s.begin(), s.end(), '\n') + 1;
    if (static_cast<double>(n) * lines + s.size() > l.max_bytes) {
      return absl::ResourceExhaustedError("function result too large");
    }
    std::string pad(n, ' ');
    std::string out = (newline ? "\n" : "") + pad + absl::StrReplaceAll(s, {{"\n", "\n" + pad}});
    return Value::String(out);
  };
  Add(t, "indent", {I, S}, false, [indent](Args& a, const FuncLimits& l) { return indent(a, l, false); });
  Add(t, "nindent", {I, S}, false, [indent](Args& a, const FuncLimits& l) { return indent(a, l, true); });
  Add(t, "nospace", {S}, false, [](Args& a, const FuncLimits&) -> R {
    std::string out;
    for (char c : Str(a[0])) {
      if (!absl::ascii_isspace(c)) out.push_back(c);
    }
    return Value::String(out);
  });
  Add(t, "trunc", {I, S}, false, [](Args& a, const FuncLimits&) -> R {
    int64_t c = IntOf(a[0]);
    const std::string& s = Str(a[1]);
    int64_t n = static_cast<int64_t>(s.size());
    if (c < 0 && n + c > 0) return Value::String(s.substr(n + c));
    if (c >= 0 && n > c) return Value::String(s.substr(0, c));
    return Value::String(s);
  });
  Add(t, "substr", {I, I, S}, false, [](Args& a, const FuncLimits&) -> R {
    int64_t start = IntOf(a[0]), end = IntOf(a[1]);
    const std::string& s = Str(a[2]);
    int64_t n = static_cast<int64_t>(s.size());
    if (start < 0) {
      if (end < 0 || end > n) return Err("runtime error: slice bounds out of range");
      return Value::String(s.substr(0, end));
    }
    if (end < 0 || end > n) {
      if (start > n) return Err("runtime error: slice bounds out of range");
      return Value::String(s.substr(start));
    }
    if (start > end) return Err("runtime error: slice bounds out of range");
    return Value::String(s.substr(start, end - start));
  });
  Add(t, "quote", {A}, true, [](Args& a, const FuncLimits&) -> R {
    std::vector<std::string> out;
    for (const auto& v : a) {
      if (!IsNilV(v)) out.push_back(GoQuote(StrVal(v)));
    }
    return Value::String(absl::StrJoin(out, " "));
  });
  Add(t, "squote", {A}, true, [](Args& a, const FuncLimits&) -> R {
    std::vector<std::string> out;
    for (const auto& v : a) {
      if (!IsNilV(v)) out.push_back("'" + StrVal(v) + "'");
    }
    return Value::String(absl::StrJoin(out, " "));
  });
  Add(t, "cat", {A}, true, [](Args& a, const FuncLimits&) -> R {
    std::vector<std::string> out;
    for (const auto& v : a) {
      if (!IsNilV(v)) out.push_back(FormatValue(v.Deref()));
    }
    return Value::String(absl::StrJoin(out, " "));
  });
  Add(t, "toString", {A}, false, [](Args& a, const FuncLimits&) -> R { return Value::String(StrVal(a[0])); });
  Add(t, "toStrings", {A}, false, [](Args& a, const FuncLimits&) -> R { return StringSlice(StrSlice(a[0])); });
  Add(t, "split", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    nlohmann::json m = nlohmann::json::object();
    std::vector<std::string> parts = Str(a[0]).empty()
        ? std::vector<std::string>()
        : absl::StrSplit(Str(a[1]), Str(a[0]));
    if (Str(a[0]).empty()) {
      for (char c : Str(a[1])) parts.push_back(std::string(1, c));
    }
    for (size_t i = 0; i < parts.size(); ++i) m["_" + std::to_string(i)] = parts[i];
    return Value{GoType::kStringMap, m};
  });
  Add(t, "splitList", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    std::vector<std::string> parts;
    if (Str(a[0]).empty()) {
      for (char c : Str(a[1])) parts.push_back(std::string(1, c));
    } else {
      parts = absl::StrSplit(Str(a[1]), Str(a[0]));
    }
    return StringSlice(parts);
  });
  Add(t, "sortAlpha", {A}, false, [](Args& a, const FuncLimits&) -> R {
    Value l = a[0].Deref();
    if (l.type != GoType::kAnySlice && l.type != GoType::kStringSlice) return StringSlice({StrVal(l)});
    std::vector<std::string> v = StrSlice(a[0]);
    std::sort(v.begin(), v.end());
    return StringSlice(v);
  });
  Add(t, "plural", {S, S, I}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::String(IntOf(a[2]) == 1 ? Str(a[0]) : Str(a[1]));
  });
  Add(t, "b64enc", {S}, false, [](Args& a, const FuncLimits&) -> R {
    return Value::String(absl::Base64Escape(Str(a[0])));
  });

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

  // regular expressions (RE2 syntax, as Go's regexp)
  Add(t, "regexMatch", {S, S}, false, [](Args& a, const FuncLimits&) -> R {
    auto re = Compile(Str(a[0]));
    if (!re.ok()) return Value::Bool(false);  // sprig drops the compile error
    return Value::Bool(RE2::PartialMatch(Str(a[1]), **re));
  });
  Add(t, "regexReplaceAll", {S, S, S}, false, [](Args& a, const FuncLimits& l) -> R {
    auto re = Compile(Str(a[0]));
    if (!re.ok()) return re.status();
    std::string s = Str(a[1]);
    RE2::GlobalReplace(&s, **re, ExpandGoTemplate(Str(a[2])));
    if (auto st = CheckSize(s.size(), l); !st.ok()) return st;
    return Value::String(s);
  });
  (void)SS;
}

}  // namespace sluice::gotemplate
