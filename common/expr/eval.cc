// The tree-walking evaluator. Values flow as borrowed views wherever possible:
// JSON strings, proto strings and string literals are not copied.
#include <cmath>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/expr/access.h"
#include "common/expr/ast.h"
#include "common/expr/eval.h"

namespace sluice::expr::internal {

namespace {

using Kind = Value::Kind;
namespace pb = google::protobuf;

const char* OpText(Op op) {
  switch (op) {
    case Op::kNeg: return "-";
    case Op::kNot: return "!";
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kMod: return "%";
    case Op::kEq: return "==";
    case Op::kNe: return "!=";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
    case Op::kIn: return "in";
    case Op::kContains: return "contains";
    case Op::kStartsWith: return "startsWith";
    case Op::kEndsWith: return "endsWith";
    case Op::kMatches: return "matches";
    case Op::kJexlMatch: return "=~";
    case Op::kNone: break;
  }
  return "?";
}

class Evaluator {
 public:
  Evaluator(absl::string_view source, const Environment& env) : src_(source), env_(env) {}

  absl::StatusOr<Value> Eval(const Node& n) const {
    switch (n.kind) {
      case NodeKind::kLiteral:
        // Borrow string literals from the tree instead of copying them.
        if (n.literal.kind() == Kind::kString) return Value::StringView(n.literal.string_value());
        return n.literal;
      case NodeKind::kIdent: {
        const Value* v = env_.Lookup(n.name);
        if (v == nullptr) return Error(n, absl::StrCat("unknown variable '", n.name, "'"));
        return *v;
      }
      case NodeKind::kMember: {
        absl::StatusOr<Value> recv = Eval(*n.children[0]);
        if (!recv.ok()) return recv;
        if (n.nil_safe && recv->is_null()) return Value();
        return Member(n, *recv);
      }
      case NodeKind::kMethod: return Method(n);
      case NodeKind::kIndex: {
        absl::StatusOr<Value> c = Eval(*n.children[0]);
        if (!c.ok()) return c;
        if (n.nil_safe && c->is_null()) return Value();
        absl::StatusOr<Value> k = Eval(*n.children[1]);
        if (!k.ok()) return k;
        absl::StatusOr<Value> v = Index(*c, *k);
        if (!v.ok()) return Wrap(n, v.status());
        return v;
      }
      case NodeKind::kCall: return Call(n);
      case NodeKind::kList: {
        Value::List items;
        items.reserve(n.children.size());
        for (const auto& c : n.children) {
          absl::StatusOr<Value> v = Eval(*c);
          if (!v.ok()) return v;
          items.push_back(v->Materialize());
        }
        return Value::MakeList(std::move(items));
      }
      case NodeKind::kUnary: return Unary(n);
      case NodeKind::kAnd:
      case NodeKind::kOr: {
        bool is_and = n.kind == NodeKind::kAnd;
        absl::StatusOr<bool> l = Condition(*n.children[0], is_and ? "&&" : "||");
        if (!l.ok()) return l.status();
        if (*l != is_and) return Value::Bool(*l);  // short-circuit
        absl::StatusOr<bool> r = Condition(*n.children[1], is_and ? "&&" : "||");
        if (!r.ok()) return r.status();
        return Value::Bool(*r);
      }
      case NodeKind::kTernary: {
        absl::StatusOr<bool> c = Condition(*n.children[0], "?:");
        if (!c.ok()) return c.status();
        return Eval(*n.children[*c ? 1 : 2]);
      }
      case NodeKind::kCoalesce:
      case NodeKind::kElvis: {
        absl::StatusOr<Value> l = Eval(*n.children[0]);
        if (!l.ok()) return l;
        bool use_left = n.kind == NodeKind::kCoalesce ? !l->is_null() : !l->IsZero();
        return use_left ? l : Eval(*n.children[1]);
      }
      case NodeKind::kBinary: return Binary(n);
    }
    return Error(n, "internal error: unknown node");
  }

 private:
  absl::Status Error(const Node& n, absl::string_view what,
                     absl::StatusCode code = absl::StatusCode::kInvalidArgument) const {
    absl::string_view text = src_.substr(n.begin, n.end - n.begin);
    bool cut = text.size() > 80;
    if (cut) text = text.substr(0, 77);
    return absl::Status(code, absl::StrCat(what, " in `", text, cut ? "..." : "", "` at column ",
                                           n.begin + 1));
  }
  absl::Status Wrap(const Node& n, const absl::Status& s) const {
    return Error(n, s.message(), s.code());
  }
  absl::Status TypeError(const Node& n, Op op, const Value& a, const Value& b) const {
    return Error(n, absl::StrCat("type mismatch: cannot apply '", OpText(op), "' to ",
                                 a.kind_name(), " and ", b.kind_name()));
  }

  // Operand of && || ?: and !: bool, or null read as false.
  absl::StatusOr<bool> Condition(const Node& n, absl::string_view op) const {
    absl::StatusOr<Value> v = Eval(n);
    if (!v.ok()) return v.status();
    if (v->kind() == Kind::kBool) return v->bool_value();
    if (v->kind() == Kind::kNull) return false;
    return Error(n, absl::StrCat("type mismatch: '", op, "' needs a bool, got ", v->kind_name()));
  }

  absl::StatusOr<Value> Member(const Node& n, const Value& recv) const {
    if (const pb::Message* m = recv.message()) {
      const pb::Descriptor* type = m->GetDescriptor();
      if (const ResolvedField* hit = n.cache.Find(type)) return ReadField(*m, *hit);
      absl::StatusOr<ResolvedField> f = n.cache.Resolve(type, n.name, -1);
      if (!f.ok()) return Wrap(n, f.status());
      return ReadField(*m, *f);
    }
    if (recv.kind() == Kind::kMap) {
      absl::StatusOr<Value> v = Index(recv, Value::StringView(n.name));
      if (!v.ok()) return Wrap(n, v.status());
      return v;
    }
    return Error(n, absl::StrCat("cannot read field '", n.name, "' of ",
                                 recv.is_null() ? "null" : absl::StrCat("a ", recv.kind_name())));
  }

  absl::StatusOr<Value> Method(const Node& n) const {
    absl::StatusOr<Value> recv = Eval(*n.children[0]);
    if (!recv.ok()) return recv;
    if (n.nil_safe && recv->is_null()) return Value();
    int nargs = static_cast<int>(n.children.size()) - 1;
    if (IsMacro(n)) return Macro(n, *recv);
    if (nargs == 0) {  // the common getter call: no argument values to build
      if (const pb::Message* m = recv->message()) {
        const pb::Descriptor* type = m->GetDescriptor();
        const ResolvedField* hit = n.cache.Find(type);
        if (hit != nullptr && hit->access != FieldAccess::kElement) return ReadField(*m, *hit);
      }
    }
    Value args[2];
    if (nargs > 2) return Error(n, absl::StrCat("too many arguments to '", n.name, "'"));
    for (int i = 0; i < nargs; ++i) {
      absl::StatusOr<Value> a = Eval(*n.children[i + 1]);
      if (!a.ok()) return a;
      args[i] = *std::move(a);
    }
    if (const pb::Message* m = recv->message()) {
      absl::StatusOr<ResolvedField> f = n.cache.Resolve(m->GetDescriptor(), n.name, nargs);
      if (!f.ok()) return Wrap(n, f.status());
      if (f->access != FieldAccess::kElement) return ReadField(*m, *f);
      absl::StatusOr<Value> e = Index(Value::ProtoField(m, f->field), args[0]);
      if (!e.ok()) return Wrap(n, e.status());
      return e;
    }
    return BuiltinMethod(n, *recv, nargs, args);
  }

  // CEL's comprehension macros `list.exists(x, p)`, `list.all(x, p)` and
  // `list.exists_one(x, p)`: `x` is bound to each element in turn.
  static bool IsMacro(const Node& n) {
    return n.children.size() == 3 && n.children[1]->kind == NodeKind::kIdent &&
           (n.name == "exists" || n.name == "all" || n.name == "exists_one");
  }
  absl::StatusOr<Value> Macro(const Node& n, const Value& list) const {
    if (list.kind() != Kind::kList) {
      return Error(n, absl::StrCat("'", n.name, "' needs a list, got ",
                                   list.is_null() ? "null" : list.kind_name()));
    }
    Environment scope = env_;
    const std::string& var = n.children[1]->name;
    int hits = 0;
    bool all = true;
    absl::Status error;
    ForEachElement(list, [&](const Value& e) {
      scope.BindValue(var, e);
      absl::StatusOr<bool> p = Evaluator(src_, scope).Condition(*n.children[2], n.name);
      if (!p.ok()) {
        error = p.status();
        return false;
      }
      hits += *p ? 1 : 0;
      all = all && *p;
      // exists stops at the first hit and all at the first miss, as CEL's
      // short-circuiting comprehensions.
      if (n.name == "exists" && *p) return false;
      if (n.name == "all" && !*p) return false;
      return true;
    });
    if (!error.ok()) return error;
    if (n.name == "exists") return Value::Bool(hits > 0);
    if (n.name == "all") return Value::Bool(all);
    return Value::Bool(hits == 1);
  }

  // Java-style methods on strings, lists and maps (Firehose filters use them).
  absl::StatusOr<Value> BuiltinMethod(const Node& n, const Value& r, int nargs,
                                      const Value* args) const {
    const std::string& name = n.name;
    auto need = [&](int want) -> absl::Status {
      if (nargs == want) return absl::OkStatus();
      return Error(n, absl::StrCat("'", name, "' takes ", want, " argument", want == 1 ? "" : "s",
                                   ", got ", nargs));
    };
    auto need_string_arg = [&]() -> absl::Status {
      if (absl::Status s = need(1); !s.ok()) return s;
      if (args[0].kind() == Kind::kString) return absl::OkStatus();
      return Error(n, absl::StrCat("'", name, "' needs a string argument, got ",
                                   args[0].kind_name()));
    };
    absl::Status s;
    if (r.kind() == Kind::kString) {
      absl::string_view str = r.string_value();
      if (name == "equals") {
        if (s = need(1); !s.ok()) return s;
        return Value::Bool(r == args[0]);
      }
      if (name == "length" || name == "size" || name == "isEmpty") {
        if (s = need(0); !s.ok()) return s;
        if (name == "isEmpty") return Value::Bool(str.empty());
        return Value::Int(static_cast<int64_t>(str.size()));
      }
      if (name == "toLowerCase" || name == "toUpperCase" || name == "trim") {
        if (s = need(0); !s.ok()) return s;
        if (name == "trim") return Value::String(std::string(absl::StripAsciiWhitespace(str)));
        return Value::String(name == "toLowerCase" ? absl::AsciiStrToLower(str)
                                                   : absl::AsciiStrToUpper(str));
      }
      if (name == "equalsIgnoreCase" || name == "startsWith" || name == "endsWith" ||
          name == "contains") {
        if (s = need_string_arg(); !s.ok()) return s;
        absl::string_view a = args[0].string_value();
        if (name == "equalsIgnoreCase") return Value::Bool(absl::EqualsIgnoreCase(str, a));
        if (name == "startsWith") return Value::Bool(absl::StartsWith(str, a));
        if (name == "endsWith") return Value::Bool(absl::EndsWith(str, a));
        return Value::Bool(absl::StrContains(str, a));
      }
      if (name == "matches") {  // Java String.matches: the whole string must match
        if (s = need_string_arg(); !s.ok()) return s;
        return Match(n, str, args[0].string_value(), nullptr, /*full=*/true);
      }
    } else if (r.kind() == Kind::kList || r.kind() == Kind::kMap) {
      if (nargs == 0) {
        if (std::optional<Value> v = MapGetter(r, name)) return *std::move(v);
      }
      if (name == "size" || name == "isEmpty") {
        if (s = need(0); !s.ok()) return s;
        if (name == "isEmpty") return Value::Bool(r.size() == 0);
        return Value::Int(static_cast<int64_t>(r.size()));
      }
      if (name == "get") {
        if (s = need(1); !s.ok()) return s;
        absl::StatusOr<Value> v = Index(r, args[0]);
        if (!v.ok()) return Wrap(n, v.status());
        return v;
      }
      if (name == "contains" || name == "containsKey") {
        if (s = need(1); !s.ok()) return s;
        if ((name == "containsKey") != (r.kind() == Kind::kMap)) {
          return Error(n, absl::StrCat("no method '", name, "' on a ", r.kind_name()));
        }
        absl::StatusOr<bool> b = Contains(r, args[0]);
        if (!b.ok()) return Wrap(n, b.status());
        return Value::Bool(*b);
      }
    }
    return Error(n, absl::StrCat("no method '", name, "' on ",
                                 r.is_null() ? "null" : absl::StrCat("a ", r.kind_name())));
  }

  absl::StatusOr<Value> Match(const Node& n, absl::string_view text, absl::string_view pattern,
                              const RE2* compiled, bool full) const {
    std::unique_ptr<RE2> dynamic;
    if (compiled == nullptr) {
      RE2::Options opts;
      opts.set_log_errors(false);
      dynamic = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), opts);
      if (!dynamic->ok()) {
        return Error(n, absl::StrCat("invalid regular expression: ", dynamic->error()));
      }
      compiled = dynamic.get();
    }
    re2::StringPiece t(text.data(), text.size());
    return Value::Bool(full ? RE2::FullMatch(t, *compiled) : RE2::PartialMatch(t, *compiled));
  }

  absl::StatusOr<Value> Call(const Node& n) const {
    absl::StatusOr<Value> a = Eval(*n.children[0]);
    if (!a.ok()) return a;
    switch (n.builtin) {
      case Builtin::kLen:
        if (a->kind() == Kind::kString || a->kind() == Kind::kList || a->kind() == Kind::kMap) {
          return Value::Int(static_cast<int64_t>(a->size()));
        }
        break;
      case Builtin::kLower:
      case Builtin::kUpper:
        if (a->kind() == Kind::kString) {
          return Value::String(n.builtin == Builtin::kLower ? absl::AsciiStrToLower(a->string_value())
                                                            : absl::AsciiStrToUpper(a->string_value()));
        }
        break;
      case Builtin::kEmpty:  // JEXL empty(): null, "", or an empty collection
        if (a->is_null()) return Value::Bool(true);
        if (a->kind() == Kind::kString || a->kind() == Kind::kList || a->kind() == Kind::kMap) {
          return Value::Bool(a->size() == 0);
        }
        return Value::Bool(false);
      case Builtin::kInt: {  // CEL int(): from int, double (truncated) or a decimal string
        if (a->kind() == Kind::kInt) return *a;
        if (a->kind() == Kind::kDouble) {
          double d = a->number_value();
          if (!(d > -9.3e18 && d < 9.3e18)) return Error(n, "int() overflow");
          return Value::Int(static_cast<int64_t>(d));
        }
        if (a->kind() == Kind::kString) {
          int64_t v;
          if (absl::SimpleAtoi(a->string_value(), &v)) return Value::Int(v);
          return Error(n, absl::StrCat("int() cannot convert \"", a->string_value(), "\""));
        }
        break;
      }
      case Builtin::kNone: break;
    }
    return Error(n, absl::StrCat("type mismatch: ", n.name, "() does not accept a ",
                                 a->kind_name()));
  }

  absl::StatusOr<Value> Unary(const Node& n) const {
    if (n.op == Op::kNot) {
      absl::StatusOr<bool> b = Condition(*n.children[0], "!");
      if (!b.ok()) return b.status();
      return Value::Bool(!*b);
    }
    absl::StatusOr<Value> v = Eval(*n.children[0]);
    if (!v.ok()) return v;
    if (v->kind() == Kind::kInt) {
      if (v->int_value() == INT64_MIN) return Error(n, "integer overflow");
      return Value::Int(-v->int_value());
    }
    if (v->kind() == Kind::kDouble) return Value::Double(-v->number_value());
    return Error(n, absl::StrCat("type mismatch: cannot negate a ", v->kind_name()));
  }

  absl::StatusOr<Value> Arith(const Node& n, Op op, const Value& a, const Value& b) const {
    if (a.kind() == Kind::kInt && b.kind() == Kind::kInt) {
      int64_t x = a.int_value(), y = b.int_value(), r = 0;
      bool overflow = false;
      switch (op) {
        case Op::kAdd: overflow = __builtin_add_overflow(x, y, &r); break;
        case Op::kSub: overflow = __builtin_sub_overflow(x, y, &r); break;
        case Op::kMul: overflow = __builtin_mul_overflow(x, y, &r); break;
        case Op::kDiv:
        case Op::kMod:
          if (y == 0) return Error(n, "division by zero");
          if (x == INT64_MIN && y == -1) {
            if (op == Op::kMod) return Value::Int(0);
            overflow = true;
            break;
          }
          r = op == Op::kDiv ? x / y : x % y;
          break;
        default: break;
      }
      if (overflow) return Error(n, "integer overflow");
      return Value::Int(r);
    }
    double x = a.number_value(), y = b.number_value();
    switch (op) {
      case Op::kAdd: return Value::Double(x + y);
      case Op::kSub: return Value::Double(x - y);
      case Op::kMul: return Value::Double(x * y);
      case Op::kDiv:
        if (y == 0) return Error(n, "division by zero");  // as JEXL
        return Value::Double(x / y);
      case Op::kMod:
        if (y == 0) return Error(n, "division by zero");
        return Value::Double(std::fmod(x, y));
      default: return Error(n, "internal error: bad arithmetic operator");
    }
  }

  absl::StatusOr<Value> Binary(const Node& n) const {
    absl::StatusOr<Value> a = Eval(*n.children[0]);
    if (!a.ok()) return a;
    absl::StatusOr<Value> b = Eval(*n.children[1]);
    if (!b.ok()) return b;
    switch (n.op) {
      case Op::kEq: return Value::Bool(*a == *b);
      case Op::kNe: return Value::Bool(*a != *b);
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe: {
        absl::StatusOr<int> c = Compare(*a, *b);
        if (!c.ok()) return TypeError(n, n.op, *a, *b);
        if (*c == 2) return Value::Bool(false);  // NaN
        bool r = n.op == Op::kLt ? *c < 0 : n.op == Op::kLe ? *c <= 0 : n.op == Op::kGt ? *c > 0 : *c >= 0;
        return Value::Bool(r);
      }
      case Op::kIn:
      case Op::kContains: {
        const Value& container = n.op == Op::kIn ? *b : *a;
        const Value& item = n.op == Op::kIn ? *a : *b;
        absl::StatusOr<bool> r = Contains(container, item);
        if (!r.ok()) return TypeError(n, n.op, *a, *b);
        return Value::Bool(*r != n.negate);
      }
      case Op::kJexlMatch: {
        // JEXL: `x =~ 'regex'` is a full match; `x =~ [list]` is membership.
        if (b->kind() == Kind::kList || b->kind() == Kind::kMap) {
          absl::StatusOr<bool> r = Contains(*b, *a);
          if (!r.ok()) return TypeError(n, n.op, *a, *b);
          return Value::Bool(*r != n.negate);
        }
        if (a->kind() != Kind::kString || b->kind() != Kind::kString) {
          return TypeError(n, n.op, *a, *b);
        }
        absl::StatusOr<Value> m =
            Match(n, a->string_value(), b->string_value(), n.regex.get(), /*full=*/true);
        if (!m.ok()) return m;
        return Value::Bool(m->bool_value() != n.negate);
      }
      case Op::kStartsWith:
      case Op::kEndsWith:
      case Op::kMatches: {
        if (a->kind() != Kind::kString || b->kind() != Kind::kString) {
          return TypeError(n, n.op, *a, *b);
        }
        absl::string_view x = a->string_value(), y = b->string_value();
        if (n.op == Op::kStartsWith) return Value::Bool(absl::StartsWith(x, y) != n.negate);
        if (n.op == Op::kEndsWith) return Value::Bool(absl::EndsWith(x, y) != n.negate);
        absl::StatusOr<Value> m = Match(n, x, y, n.regex.get(), /*full=*/false);
        if (!m.ok()) return m;
        return Value::Bool(m->bool_value() != n.negate);
      }
      case Op::kAdd:
        if (a->kind() == Kind::kString || b->kind() == Kind::kString) {
          return Value::String(absl::StrCat(ToText(*a), ToText(*b)));
        }
        if (a->kind() == Kind::kList && b->kind() == Kind::kList) {
          Value::List out;
          ForEachElement(*a, [&](const Value& v) { out.push_back(v.Materialize()); return true; });
          ForEachElement(*b, [&](const Value& v) { out.push_back(v.Materialize()); return true; });
          return Value::MakeList(std::move(out));
        }
        [[fallthrough]];
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod:
        if (!a->is_number() || !b->is_number()) return TypeError(n, n.op, *a, *b);
        return Arith(n, n.op, *a, *b);
      default: return Error(n, "internal error: unknown operator");
    }
  }

  absl::string_view src_;
  const Environment& env_;
};

}  // namespace

absl::StatusOr<Value> Evaluate(const Node& root, absl::string_view source,
                               const Environment& env) {
  return Evaluator(source, env).Eval(root);
}

}  // namespace sluice::expr::internal
