// sprig's string and regular-expression functions and Siren's string extras
// (Siren core/template/mapper.go). Case mapping is ASCII only.
#include <algorithm>
#include <functional>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/gotemplate/sprig.h"
#include "re2/re2.h"

namespace sluice::gotemplate::sprig {
namespace {

// The non-nil operands, each as `piece(v)`, joined by " " (sprig's cat,
// quote, squote). Each string operand's size is checked against the budget
// before its piece is built (security review R3-L6).
R JoinBounded(const Args& a, const FuncLimits& l, const std::function<std::string(const Value&)>& piece) {
  std::string out;
  bool first = true;
  for (const auto& v : a) {
    if (IsNilV(v)) continue;
    Value d = v.Deref();
    size_t known = d.j.is_string() ? d.j.get_ref<const std::string&>().size() : 0;
    if (out.size() + known + 1 > l.max_bytes) return absl::ResourceExhaustedError("function result too large");
    if (!first) out.push_back(' ');
    first = false;
    out += piece(v);
    if (auto st = CheckSize(out.size(), l); !st.ok()) return st;
  }
  return Value::String(std::move(out));
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

}  // namespace

void AddStringFuncs(std::map<std::string, Func>* t) {
  const Param A = Param::kAny, S = Param::kString, I = Param::kInt, SS = Param::kStringSlice;
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
  Add(t, "quote", {A}, true, [](Args& a, const FuncLimits& l) -> R {
    return JoinBounded(a, l, [](const Value& v) { return GoQuote(StrVal(v)); });
  });
  Add(t, "squote", {A}, true, [](Args& a, const FuncLimits& l) -> R {
    return JoinBounded(a, l, [](const Value& v) { return "'" + StrVal(v) + "'"; });
  });
  Add(t, "cat", {A}, true, [](Args& a, const FuncLimits& l) -> R {
    return JoinBounded(a, l, [](const Value& v) { return FormatValue(v.Deref()); });
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
}

}  // namespace sluice::gotemplate::sprig
