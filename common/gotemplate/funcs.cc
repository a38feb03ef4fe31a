// text/template's builtins (Go 1.19 funcs.go). The sprig and Siren
// functions are in sprig_strings.cc and sprig_lists.cc.
#include "common/gotemplate/funcs.h"

#include "absl/strings/str_cat.h"
#include "common/gotemplate/sprig.h"
#include "common/gotemplate/unquote.h"

namespace sluice::gotemplate {

namespace {

using Args = std::vector<Value>;
absl::Status Err(const std::string& m) { return absl::InvalidArgumentError(m); }

enum class Kind { kInvalid, kBool, kInt, kFloat, kString, kOther };

Kind BasicKind(const Value& v) {
  switch (v.type) {
    case GoType::kBool: return Kind::kBool;
    case GoType::kInt: case GoType::kInt64: return Kind::kInt;
    case GoType::kFloat64: return Kind::kFloat;
    case GoType::kString: return Kind::kString;
    case GoType::kInvalid: case GoType::kNilIface: return Kind::kInvalid;
    default: return Kind::kOther;
  }
}

bool IsNilV(const Value& v) { return !v.valid() || v.type == GoType::kNilIface; }

absl::StatusOr<bool> Eq(const Value& a1, const Value& a2) {
  Kind k1 = BasicKind(a1), k2 = BasicKind(a2);
  // Go's basicKind reports every non-basic kind (and nil) as invalidKind.
  Kind b1 = k1 == Kind::kOther ? Kind::kInvalid : k1;
  Kind b2 = k2 == Kind::kOther ? Kind::kInvalid : k2;
  if (b1 != b2) {
    if (!IsNilV(a1) && !IsNilV(a2)) return Err("incompatible types for comparison");
    return false;
  }
  switch (b1) {
    case Kind::kBool: return a1.j.get<bool>() == a2.j.get<bool>();
    case Kind::kInt: return a1.j.get<int64_t>() == a2.j.get<int64_t>();
    case Kind::kFloat: return a1.j.get<double>() == a2.j.get<double>();
    case Kind::kString: return a1.j.get_ref<const std::string&>() == a2.j.get_ref<const std::string&>();
    default: break;
  }
  // non-basic kinds: nil compares with anything, same-kind values must be comparable
  if (!IsNilV(a1) && !IsNilV(a2) && a1.type != a2.type) {
    bool a1root = a1.type == GoType::kRootPtr, a2root = a2.type == GoType::kRootPtr;
    if (a1root != a2root) return Err("non-comparable types");
  }
  if (IsNilV(a1) || IsNilV(a2)) return IsNilV(a1) == IsNilV(a2);
  if (a1.type == GoType::kRootPtr && a2.type == GoType::kRootPtr) return true;  // the same pointer
  return Err("non-comparable type " + FormatValue(a2) + ": " + GoTypeName(a2));
}

absl::StatusOr<bool> Lt(const Value& a1, const Value& a2) {
  Kind k1 = BasicKind(a1), k2 = BasicKind(a2);
  if (k1 == Kind::kInvalid || k1 == Kind::kOther || k2 == Kind::kInvalid || k2 == Kind::kOther) {
    return Err("invalid type for comparison");
  }
  if (k1 != k2) return Err("incompatible types for comparison");
  switch (k1) {
    case Kind::kBool: return Err("invalid type for comparison");
    case Kind::kInt: return a1.j.get<int64_t>() < a2.j.get<int64_t>();
    case Kind::kFloat: return a1.j.get<double>() < a2.j.get<double>();
    default: return a1.j.get_ref<const std::string&>() < a2.j.get_ref<const std::string&>();
  }
}

absl::StatusOr<int64_t> IndexArg(const Value& index, int64_t size) {
  if (IsNilV(index)) return Err("cannot index slice/array with nil");
  if (!index.is_int()) return Err("cannot index slice/array with type " + GoTypeName(index));
  int64_t x = index.j.get<int64_t>();
  if (x < 0 || x > size) return Err(absl::StrCat("index out of range: ", x));
  return x;
}

absl::StatusOr<Value> Index(Args& a, const FuncLimits&) {
  Value item = a[0].Unwrapped();
  if (!item.valid()) return Err("index of untyped nil");
  for (size_t k = 1; k < a.size(); ++k) {
    Value index = a[k].Unwrapped();
    if (item.type == GoType::kRootPtr) {
      item = Value::FromJson(item.j);
      if (item.type == GoType::kNilIface) return Err("index of nil pointer");
    }
    if (item.type == GoType::kNilIface) return Err("index of nil pointer");
    switch (item.type) {
      case GoType::kString:
      case GoType::kAnySlice:
      case GoType::kStringSlice: {
        int64_t len = LengthOf(item);
        auto x = IndexArg(index, len);
        if (!x.ok()) return x.status();
        if (*x >= len) return Err(absl::StrCat("reflect: slice index out of range"));
        if (item.type == GoType::kString) {
          item = Value::Int(static_cast<unsigned char>(item.j.get_ref<const std::string&>()[*x]));
        } else if (item.type == GoType::kStringSlice) {
          item = Value::String(item.j[*x].get<std::string>());
        } else {
          item = Value::FromJson(item.j[*x]);
        }
        break;
      }
      case GoType::kMap:
      case GoType::kStringMap: {
        if (!index.valid()) return Err("value is nil; should be of type string");
        if (!index.is_string()) return Err("value has type " + GoTypeName(index) + "; should be string");
        auto it = item.j.find(index.j.get<std::string>());
        if (item.type == GoType::kStringMap) {
          item = Value::String(it == item.j.end() ? "" : it->get<std::string>());
        } else {
          item = it == item.j.end() ? Value{GoType::kNilIface, nullptr} : Value::FromJson(*it);
        }
        break;
      }
      default:
        return Err("can't index item of type " + GoTypeName(item));
    }
  }
  return item;
}

// text/template's evalArgs: the operands as fmt.Sprint prints them, within
// `l.max_bytes` (ResourceExhausted past it).
absl::StatusOr<std::string> EvalArgs(const Args& a, const FuncLimits& l) {
  if (a.size() == 1 && a[0].is_string()) return a[0].j.get<std::string>();
  Args printable;
  for (const Value& v : a) {
    Value p = v.Unwrapped();
    if (p.type == GoType::kRootPtr) p = Value::FromJson(p.j);
    printable.push_back(p.valid() ? p : Value::String("<no value>"));
  }
  return Sprint(printable, l.max_bytes);
}

// An escaper over EvalArgs: html, js and urlquery.
absl::StatusOr<Value> Escaped(const Args& a, const FuncLimits& l, std::string (*escape)(const std::string&)) {
  auto text = EvalArgs(a, l);
  if (!text.ok()) return text.status();
  std::string out = escape(*text);
  if (out.size() > l.max_bytes) return absl::ResourceExhaustedError("function result too large");
  return Value::String(std::move(out));
}

std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\0': out += "\xEF\xBF\xBD"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string JsEscape(const std::string& s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '"': out += "\\\""; break;
      case '<': out += "\\u003C"; break;
      case '>': out += "\\u003E"; break;
      case '&': out += "\\u0026"; break;
      case '=': out += "\\u003D"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out;
}

std::string QueryEscape(const std::string& s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

Func Builtin(std::vector<Param> params, bool variadic, FuncImpl impl) {
  return Func{std::move(params), variadic, std::move(impl)};
}

absl::StatusOr<Value> Compare(Args& a, bool lt, bool eq_ok) {
  auto l = Lt(a[0].Unwrapped(), a[1].Unwrapped());
  if (!l.ok()) return l.status();
  if (lt) return Value::Bool(*l);
  if (*l) return Value::Bool(eq_ok);
  auto e = Eq(a[0].Unwrapped(), a[1].Unwrapped());
  if (!e.ok()) return e.status();
  return Value::Bool(eq_ok ? *e : false);
}

std::map<std::string, Func> MakeTable() {
  std::map<std::string, Func> t;
  const Param V = Param::kValue, A = Param::kAny, S = Param::kString;
  t["and"] = Builtin({V, V}, true, nullptr);
  t["or"] = Builtin({V, V}, true, nullptr);
  t["not"] = Builtin({V}, false, [](Args& a, const FuncLimits&) -> absl::StatusOr<Value> {
    return Value::Bool(!IsTrue(a[0].Unwrapped()));
  });
  t["len"] = Builtin({V}, false, [](Args& a, const FuncLimits&) -> absl::StatusOr<Value> {
    Value v = a[0];
    if (IsNilV(v)) return Err("len of nil pointer");
    if (v.type == GoType::kRootPtr && v.j.is_null()) return Err("len of nil pointer");
    int64_t n = LengthOf(v);
    if (n < 0) return Err("len of type " + GoTypeName(v));
    return Value::Int(n);
  });
  t["index"] = Builtin({V, V}, true, Index);
  // "slice" is sprig's (sprig_lists.cc): Siren's Funcs replace the builtin.
  t["print"] = Builtin({A}, true, [](Args& a, const FuncLimits& l) -> absl::StatusOr<Value> {
    auto out = Sprint(a, l.max_bytes);
    if (!out.ok()) return out.status();
    return Value::String(std::move(*out));
  });
  t["println"] = Builtin({A}, true, [](Args& a, const FuncLimits& l) -> absl::StatusOr<Value> {
    auto out = Sprintln(a, l.max_bytes);
    if (!out.ok()) return out.status();
    return Value::String(std::move(*out));
  });
  t["printf"] = Builtin({S, A}, true, [](Args& a, const FuncLimits& l) -> absl::StatusOr<Value> {
    Args rest(a.begin() + 1, a.end());
    auto out = Sprintf(a[0].j.get<std::string>(), rest, l.max_bytes);
    if (!out.ok()) return out.status();
    return Value::String(std::move(*out));
  });
  t["html"] = Builtin({A}, true, [](Args& a, const FuncLimits& l) { return Escaped(a, l, HtmlEscape); });
  t["js"] = Builtin({A}, true, [](Args& a, const FuncLimits& l) { return Escaped(a, l, JsEscape); });
  t["urlquery"] = Builtin({A}, true, [](Args& a, const FuncLimits& l) { return Escaped(a, l, QueryEscape); });
  t["eq"] = Builtin({V, V}, true, [](Args& a, const FuncLimits&) -> absl::StatusOr<Value> {
    if (a.size() < 2) return Err("missing argument for comparison");
    for (size_t k = 1; k < a.size(); ++k) {
      auto e = Eq(a[0].Unwrapped(), a[k].Unwrapped());
      if (!e.ok()) return e.status();
      if (*e) return Value::Bool(true);
    }
    return Value::Bool(false);
  });
  t["ne"] = Builtin({V, V}, false, [](Args& a, const FuncLimits&) -> absl::StatusOr<Value> {
    auto e = Eq(a[0].Unwrapped(), a[1].Unwrapped());
    if (!e.ok()) return e.status();
    return Value::Bool(!*e);
  });
  t["lt"] = Builtin({V, V}, false, [](Args& a, const FuncLimits&) { return Compare(a, true, false); });
  t["le"] = Builtin({V, V}, false, [](Args& a, const FuncLimits&) { return Compare(a, false, true); });
  t["gt"] = Builtin({V, V}, false, [](Args& a, const FuncLimits&) -> absl::StatusOr<Value> {
    auto le = Compare(a, false, true);
    if (!le.ok()) return le.status();
    return Value::Bool(!le->j.get<bool>());
  });
  t["ge"] = Builtin({V, V}, false, [](Args& a, const FuncLimits&) -> absl::StatusOr<Value> {
    auto lt = Compare(a, true, false);
    if (!lt.ok()) return lt.status();
    return Value::Bool(!lt->j.get<bool>());
  });
  AddSprigFuncs(&t);
  return t;
}

}  // namespace

std::string ParamName(Param p) {
  switch (p) {
    case Param::kValue: return "reflect.Value";
    case Param::kAny: return "interface {}";
    case Param::kString: return "string";
    case Param::kInt: return "int";
    case Param::kFloat: return "float64";
    case Param::kBool: return "bool";
    case Param::kStringSlice: return "[]string";
    case Param::kMap: return "map[string]interface {}";
  }
  return "?";
}

std::string StrVal(const Value& v0) {
  Value v = v0.Deref();
  if (v.is_string()) return v.j.get<std::string>();
  return FormatValue(v);
}

const std::map<std::string, Func>& FuncTable() {
  static const std::map<std::string, Func>* table = new std::map<std::string, Func>(MakeTable());
  return *table;
}

}  // namespace sluice::gotemplate
