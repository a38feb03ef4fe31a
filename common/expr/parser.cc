// Lexer and recursive-descent parser. Precedence follows JEXL (lowest first):
//   ternary ?:  <  || or  <  && and  <  == !=  <
//   < <= > >= in contains startsWith endsWith matches (and their `not` forms)
//   and JEXL's =~ !~ =^ !^ =$ !$  <
//   + -  <  * / %  <  unary - + ! not  <  postfix . [] ()
// Binary levels are left-associative; the ternary is right-associative.
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/expr/ast.h"
#include "common/expr/lexer.h"

namespace sluice::expr::internal {

namespace {

class Parser {
 public:
  Parser(absl::string_view src, std::vector<Token> toks) : src_(src), toks_(std::move(toks)) {}

  absl::StatusOr<std::unique_ptr<Node>> Run() {
    auto root = Expr();
    if (!root.ok()) return root;
    if (Cur().type != Tok::kEnd) return Unexpected();
    return root;
  }

 private:
  using NodeOr = absl::StatusOr<std::unique_ptr<Node>>;

  // Counts recursion depth; Parse() fails instead of overflowing the stack.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) { ++p_->depth_; }
    ~DepthGuard() { --p_->depth_; }
    bool exceeded() const { return p_->depth_ > kMaxNesting; }

   private:
    Parser* p_;
  };

  const Token& Cur() const { return toks_[pos_]; }
  const Token& PeekTok(size_t n = 1) const {
    return toks_[std::min(pos_ + n, toks_.size() - 1)];
  }
  const Token& Advance() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }

  absl::Status ErrorAt(size_t offset, absl::string_view what) const {
    return absl::InvalidArgumentError(FormatAt(src_, offset, what));
  }

  absl::Status Unexpected() const {
    const Token& t = Cur();
    if (t.type == Tok::kEnd) return ErrorAt(t.begin, "unexpected end of input");
    absl::string_view text = src_.substr(t.begin, t.end - t.begin);
    if (text.size() > 20) text = text.substr(0, 20);
    return ErrorAt(t.begin, absl::StrCat("unexpected ", t.type == Tok::kString ? "string " : "",
                                         "'", text, t.end - t.begin > 20 ? "…" : "", "'"));
  }

  absl::Status Expect(Tok type, absl::string_view what) {
    if (Cur().type != type) {
      absl::Status s = Unexpected();
      return absl::InvalidArgumentError(absl::StrCat(s.message(), "\n(expected ", what, ")"));
    }
    Advance();
    return absl::OkStatus();
  }

  NodeOr Make(NodeKind kind, uint32_t begin, uint32_t end,
              std::vector<std::unique_ptr<Node>> children = {}) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->begin = begin;
    n->end = end;
    int h = 0;
    for (const auto& c : children) h = std::max(h, c->height);
    n->height = h + 1;
    n->children = std::move(children);
    if (n->height > kMaxHeight) return ErrorAt(begin, "expression nested too deeply");
    return n;
  }

  NodeOr MakeBinary(NodeKind kind, Op op, std::unique_ptr<Node> l, std::unique_ptr<Node> r,
                    bool negate = false) {
    uint32_t b = l->begin, e = r->end;
    std::vector<std::unique_ptr<Node>> kids;
    kids.push_back(std::move(l));
    kids.push_back(std::move(r));
    auto n = Make(kind, b, e, std::move(kids));
    if (!n.ok()) return n;
    (*n)->op = op;
    (*n)->negate = negate;
    return n;
  }

  NodeOr Expr() {
    DepthGuard guard(this);
    if (guard.exceeded()) return ErrorAt(Cur().begin, "expression nested too deeply");
    auto cond = Or();
    if (!cond.ok()) return cond;
    if (Cur().type == Tok::kCoalesce || Cur().type == Tok::kElvis) {
      // JEXL: at the ternary's level, right-associative.
      NodeKind kind = Advance().type == Tok::kCoalesce ? NodeKind::kCoalesce : NodeKind::kElvis;
      auto alt = Expr();
      if (!alt.ok()) return alt;
      return MakeBinary(kind, Op::kNone, *std::move(cond), *std::move(alt));
    }
    if (Cur().type != Tok::kQuestion) return cond;
    Advance();
    auto a = Expr();
    if (!a.ok()) return a;
    if (absl::Status s = Expect(Tok::kColon, "':' of the ?: operator"); !s.ok()) return s;
    auto b = Expr();
    if (!b.ok()) return b;
    uint32_t begin = (*cond)->begin, end = (*b)->end;
    std::vector<std::unique_ptr<Node>> kids;
    kids.push_back(*std::move(cond));
    kids.push_back(*std::move(a));
    kids.push_back(*std::move(b));
    return Make(NodeKind::kTernary, begin, end, std::move(kids));
  }

  NodeOr Or() {
    auto l = And();
    while (l.ok() && Cur().type == Tok::kOr) {
      Advance();
      auto r = And();
      if (!r.ok()) return r;
      l = MakeBinary(NodeKind::kOr, Op::kNone, *std::move(l), *std::move(r));
    }
    return l;
  }

  NodeOr And() {
    auto l = Equality();
    while (l.ok() && Cur().type == Tok::kAnd) {
      Advance();
      auto r = Equality();
      if (!r.ok()) return r;
      l = MakeBinary(NodeKind::kAnd, Op::kNone, *std::move(l), *std::move(r));
    }
    return l;
  }

  NodeOr Equality() {
    auto l = Relational();
    while (l.ok() && (Cur().type == Tok::kEq || Cur().type == Tok::kNe)) {
      Op op = Advance().type == Tok::kEq ? Op::kEq : Op::kNe;
      auto r = Relational();
      if (!r.ok()) return r;
      l = MakeBinary(NodeKind::kBinary, op, *std::move(l), *std::move(r));
    }
    return l;
  }

  static Op RelOp(Tok t) {
    switch (t) {
      case Tok::kLt: return Op::kLt;
      case Tok::kLe: return Op::kLe;
      case Tok::kGt: return Op::kGt;
      case Tok::kGe: return Op::kGe;
      case Tok::kIn: return Op::kIn;
      case Tok::kContains: return Op::kContains;
      case Tok::kStartsWith: return Op::kStartsWith;
      case Tok::kEndsWith: return Op::kEndsWith;
      case Tok::kMatches: return Op::kMatches;
      default: return Op::kNone;
    }
  }

  NodeOr Relational() {
    auto l = Additive();
    while (l.ok()) {
      bool negate = false;
      Op op = RelOp(Cur().type);
      switch (Cur().type) {
        case Tok::kRne: negate = true; [[fallthrough]];
        case Tok::kReq: op = Op::kJexlMatch; break;
        case Tok::kSne: negate = true; [[fallthrough]];
        case Tok::kSeq: op = Op::kStartsWith; break;
        case Tok::kEne: negate = true; [[fallthrough]];
        case Tok::kEeq: op = Op::kEndsWith; break;
        default: break;
      }
      if (Cur().type == Tok::kNot) {  // not in / not contains / ...
        Op next = RelOp(PeekTok().type);
        if (next < Op::kIn) break;
        Advance();
        negate = true;
        op = next;
      }
      if (op == Op::kNone) break;
      Advance();
      auto r = Additive();
      if (!r.ok()) return r;
      l = MakeBinary(NodeKind::kBinary, op, *std::move(l), *std::move(r), negate);
      if (l.ok() && (op == Op::kMatches || op == Op::kJexlMatch)) {
        if (absl::Status s = PrecompileRegex(l->get()); !s.ok()) return s;
      }
    }
    return l;
  }

  absl::Status PrecompileRegex(Node* n) {
    const Node& pat = *n->children[1];
    if (pat.kind != NodeKind::kLiteral || pat.literal.kind() != Value::Kind::kString) {
      return absl::OkStatus();
    }
    RE2::Options opts;
    opts.set_log_errors(false);
    absl::string_view p = pat.literal.string_value();
    n->regex = std::make_unique<RE2>(re2::StringPiece(p.data(), p.size()), opts);
    if (!n->regex->ok()) {
      return ErrorAt(pat.begin, absl::StrCat("invalid regular expression: ", n->regex->error()));
    }
    return absl::OkStatus();
  }

  NodeOr Additive() {
    auto l = Multiplicative();
    while (l.ok() && (Cur().type == Tok::kPlus || Cur().type == Tok::kMinus)) {
      Op op = Advance().type == Tok::kPlus ? Op::kAdd : Op::kSub;
      auto r = Multiplicative();
      if (!r.ok()) return r;
      l = MakeBinary(NodeKind::kBinary, op, *std::move(l), *std::move(r));
    }
    return l;
  }

  NodeOr Multiplicative() {
    auto l = Unary();
    while (l.ok() && (Cur().type == Tok::kStar || Cur().type == Tok::kSlash ||
                      Cur().type == Tok::kPercent)) {
      Tok t = Advance().type;
      Op op = t == Tok::kStar ? Op::kMul : (t == Tok::kSlash ? Op::kDiv : Op::kMod);
      auto r = Unary();
      if (!r.ok()) return r;
      l = MakeBinary(NodeKind::kBinary, op, *std::move(l), *std::move(r));
    }
    return l;
  }

  NodeOr Unary() {
    Tok t = Cur().type;
    if (t != Tok::kMinus && t != Tok::kPlus && t != Tok::kBang && t != Tok::kNot) {
      return Postfix();
    }
    DepthGuard guard(this);
    if (guard.exceeded()) return ErrorAt(Cur().begin, "expression nested too deeply");
    uint32_t begin = Advance().begin;
    auto operand = Unary();
    if (!operand.ok() || t == Tok::kPlus) return operand;
    Node& o = **operand;
    // Fold negative numeric literals so that -9223372036854775807 stays a constant.
    if (t == Tok::kMinus && o.kind == NodeKind::kLiteral) {
      if (o.literal.kind() == Value::Kind::kInt && o.literal.int_value() != INT64_MIN) {
        o.literal = Value::Int(-o.literal.int_value());
        o.begin = begin;
        return operand;
      }
      if (o.literal.kind() == Value::Kind::kDouble) {
        o.literal = Value::Double(-o.literal.number_value());
        o.begin = begin;
        return operand;
      }
    }
    uint32_t end = o.end;
    std::vector<std::unique_ptr<Node>> kids;
    kids.push_back(*std::move(operand));
    auto n = Make(NodeKind::kUnary, begin, end, std::move(kids));
    if (n.ok()) (*n)->op = t == Tok::kMinus ? Op::kNeg : Op::kNot;
    return n;
  }

  // Parses "(a, b, ...)" after the '(' has been seen; appends to `out`.
  absl::Status Args(std::vector<std::unique_ptr<Node>>* out, uint32_t* end) {
    if (absl::Status s = Expect(Tok::kLParen, "'('"); !s.ok()) return s;
    if (Cur().type != Tok::kRParen) {
      while (true) {
        auto a = Expr();
        if (!a.ok()) return a.status();
        out->push_back(*std::move(a));
        if (Cur().type != Tok::kComma) break;
        Advance();
      }
    }
    *end = Cur().end;
    return Expect(Tok::kRParen, "')' or ','");
  }

  NodeOr Postfix() {
    auto n = Primary();
    bool nil_safe = false;  // a `?.` earlier in this chain
    while (n.ok()) {
      Tok link = Cur().type;
      if (link == Tok::kSafeDot) {
        nil_safe = true;
        Advance();
        // `a?.[k]` indexes; `a?.b` reads a member like `a.b`.
        link = Cur().type == Tok::kLBracket ? Tok::kLBracket : Tok::kDot;
      } else if (link == Tok::kDot) {
        Advance();
      }
      if (link == Tok::kDot) {
        if (!IsWord(Cur())) {
          absl::Status s = Unexpected();
          return absl::InvalidArgumentError(absl::StrCat(s.message(), "\n(expected a field name)"));
        }
        const Token& name = Advance();
        uint32_t begin = (*n)->begin;
        std::vector<std::unique_ptr<Node>> kids;
        kids.push_back(*std::move(n));
        NodeKind kind = NodeKind::kMember;
        uint32_t end = name.end;
        if (Cur().type == Tok::kLParen) {
          kind = NodeKind::kMethod;
          if (absl::Status s = Args(&kids, &end); !s.ok()) return s;
        }
        n = Make(kind, begin, end, std::move(kids));
        if (n.ok()) {
          (*n)->name = name.text;
          (*n)->nil_safe = nil_safe;
        }
      } else if (link == Tok::kLBracket) {
        Advance();
        auto key = Expr();
        if (!key.ok()) return key;
        uint32_t end = Cur().end;
        if (absl::Status s = Expect(Tok::kRBracket, "']'"); !s.ok()) return s;
        uint32_t begin = (*n)->begin;
        std::vector<std::unique_ptr<Node>> kids;
        kids.push_back(*std::move(n));
        kids.push_back(*std::move(key));
        n = Make(NodeKind::kIndex, begin, end, std::move(kids));
        if (n.ok()) (*n)->nil_safe = nil_safe;
      } else {
        break;
      }
    }
    return n;
  }

  NodeOr Literal(const Token& t, Value v) {
    auto n = Make(NodeKind::kLiteral, t.begin, t.end);
    if (n.ok()) (*n)->literal = std::move(v);
    return n;
  }

  NodeOr Primary() {
    const Token& t = Cur();
    switch (t.type) {
      case Tok::kInt: return Literal(Advance(), Value::Int(t.ival));
      case Tok::kFloat: return Literal(Advance(), Value::Double(t.dval));
      case Tok::kString: return Literal(Advance(), Value::String(t.text));
      case Tok::kTrue: return Literal(Advance(), Value::Bool(true));
      case Tok::kFalse: return Literal(Advance(), Value::Bool(false));
      case Tok::kNull: return Literal(Advance(), Value());
      case Tok::kLParen: {
        uint32_t begin = Advance().begin;
        auto e = Expr();
        if (!e.ok()) return e;
        uint32_t end = Cur().end;
        if (absl::Status s = Expect(Tok::kRParen, "')'"); !s.ok()) return s;
        (*e)->begin = begin;  // quote the parentheses in error messages
        (*e)->end = end;
        return e;
      }
      case Tok::kLBracket: return ListLiteral();
      case Tok::kIdent: {
        const Token& id = Advance();
        if (Cur().type != Tok::kLParen) {
          auto n = Make(NodeKind::kIdent, id.begin, id.end);
          if (n.ok()) (*n)->name = id.text;
          return n;
        }
        return Call(id);
      }
      default: return Unexpected();
    }
  }

  NodeOr Call(const Token& id) {
    static const std::pair<absl::string_view, Builtin> kBuiltins[] = {
        {"len", Builtin::kLen}, {"size", Builtin::kLen},
        {"lower", Builtin::kLower}, {"upper", Builtin::kUpper},
        {"empty", Builtin::kEmpty}, {"int", Builtin::kInt},
    };
    Builtin b = Builtin::kNone;
    for (const auto& [name, builtin] : kBuiltins) {
      if (id.text == name) b = builtin;
    }
    if (b == Builtin::kNone) {
      return ErrorAt(id.begin, absl::StrCat("unknown function '", id.text,
                                            "' (known: len, size, lower, upper, empty, int)"));
    }
    std::vector<std::unique_ptr<Node>> args;
    uint32_t end = id.end;
    if (absl::Status s = Args(&args, &end); !s.ok()) return s;
    if (args.size() != 1) {
      return ErrorAt(id.begin, absl::StrCat("function '", id.text, "' takes 1 argument, got ",
                                            args.size()));
    }
    auto n = Make(NodeKind::kCall, id.begin, end, std::move(args));
    if (n.ok()) {
      (*n)->builtin = b;
      (*n)->name = id.text;
    }
    return n;
  }

  NodeOr ListLiteral() {
    uint32_t begin = Advance().begin;
    std::vector<std::unique_ptr<Node>> items;
    while (Cur().type != Tok::kRBracket) {
      auto e = Expr();
      if (!e.ok()) return e;
      items.push_back(*std::move(e));
      if (Cur().type != Tok::kComma) break;
      Advance();
    }
    uint32_t end = Cur().end;
    if (absl::Status s = Expect(Tok::kRBracket, "']' or ','"); !s.ok()) return s;
    bool constant = true;
    for (const auto& i : items) constant = constant && i->kind == NodeKind::kLiteral;
    if (!constant) return Make(NodeKind::kList, begin, end, std::move(items));
    // Constant lists are built once, at compile time.
    Value::List values;
    values.reserve(items.size());
    for (const auto& i : items) values.push_back(i->literal);
    auto n = Make(NodeKind::kLiteral, begin, end);
    if (n.ok()) (*n)->literal = Value::MakeList(std::move(values));
    return n;
  }

  absl::string_view src_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Node>> Parse(absl::string_view source) {
  if (source.size() > (1u << 20)) {
    return absl::InvalidArgumentError("expression longer than 1 MiB");
  }
  auto toks = Lex(source);
  if (!toks.ok()) return toks.status();
  return Parser(source, *std::move(toks)).Run();
}

}  // namespace sluice::expr::internal
