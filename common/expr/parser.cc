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

namespace sluice::expr::internal {

namespace {

enum class Tok : uint8_t {
  kEnd, kInt, kFloat, kString, kIdent,
  // keywords
  kTrue, kFalse, kNull, kAnd, kOr, kNot, kIn, kContains, kStartsWith, kEndsWith, kMatches,
  // punctuation
  kPlus, kMinus, kStar, kSlash, kPercent, kEq, kNe, kLt, kLe, kGt, kGe, kBang,
  kLParen, kRParen, kLBracket, kRBracket, kComma, kDot, kQuestion, kColon,
  // JEXL: =~ (matches / in), =^ (startsWith), =$ (endsWith) and negations
  kReq, kRne, kSeq, kSne, kEeq, kEne,
};

struct Token {
  Tok type = Tok::kEnd;
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string text;  // identifier / keyword spelling, or decoded string literal
  int64_t ival = 0;
  double dval = 0;
};

bool IsWord(Tok t) { return t == Tok::kIdent || (t >= Tok::kTrue && t <= Tok::kMatches); }

Tok Keyword(absl::string_view w) {
  static const std::pair<absl::string_view, Tok> kWords[] = {
      {"true", Tok::kTrue},         {"false", Tok::kFalse},
      {"nil", Tok::kNull},          {"null", Tok::kNull},
      {"and", Tok::kAnd},           {"or", Tok::kOr},
      {"not", Tok::kNot},           {"in", Tok::kIn},
      {"contains", Tok::kContains}, {"startsWith", Tok::kStartsWith},
      {"endsWith", Tok::kEndsWith}, {"matches", Tok::kMatches},
  };
  for (const auto& [word, tok] : kWords) {
    if (w == word) return tok;
  }
  return Tok::kIdent;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  explicit Lexer(absl::string_view src) : src_(src) {}

  absl::StatusOr<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      SkipSpace();
      Token t;
      t.begin = static_cast<uint32_t>(pos_);
      if (pos_ >= src_.size()) {
        t.end = t.begin;
        out.push_back(std::move(t));
        return out;
      }
      absl::Status s = Next(&t);
      if (!s.ok()) return s;
      t.end = static_cast<uint32_t>(pos_);
      out.push_back(std::move(t));
    }
  }

 private:
  void SkipSpace() {
    while (pos_ < src_.size() && (src_[pos_] == ' ' || src_[pos_] == '\t' ||
                                  src_[pos_] == '\n' || src_[pos_] == '\r')) {
      ++pos_;
    }
  }

  absl::Status Error(size_t at, absl::string_view what) {
    return absl::InvalidArgumentError(FormatAt(src_, at, what));
  }

  static bool IdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
  }
  static bool IdentChar(char c) { return IdentStart(c) || (c >= '0' && c <= '9'); }
  static bool Digit(char c) { return c >= '0' && c <= '9'; }

  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }

  absl::Status Next(Token* t) {
    char c = src_[pos_];
    if (IdentStart(c)) {
      size_t start = pos_;
      while (pos_ < src_.size() && IdentChar(src_[pos_])) ++pos_;
      t->text = std::string(src_.substr(start, pos_ - start));
      t->type = Keyword(t->text);
      return absl::OkStatus();
    }
    if (Digit(c)) return Number(t);
    if (c == '"' || c == '\'') return String(t);
    struct Punct {
      absl::string_view text;
      Tok tok;
    };
    static const Punct kPuncts[] = {
        {"=~", Tok::kReq},     {"!~", Tok::kRne},      {"=^", Tok::kSeq},     {"!^", Tok::kSne},
        {"=$", Tok::kEeq},     {"!$", Tok::kEne},
        {"==", Tok::kEq},      {"!=", Tok::kNe},       {"<=", Tok::kLe},      {">=", Tok::kGe},
        {"&&", Tok::kAnd},     {"||", Tok::kOr},       {"<", Tok::kLt},       {">", Tok::kGt},
        {"!", Tok::kBang},     {"+", Tok::kPlus},      {"-", Tok::kMinus},    {"*", Tok::kStar},
        {"/", Tok::kSlash},    {"%", Tok::kPercent},   {"(", Tok::kLParen},   {")", Tok::kRParen},
        {"[", Tok::kLBracket}, {"]", Tok::kRBracket},  {",", Tok::kComma},    {".", Tok::kDot},
        {"?", Tok::kQuestion}, {":", Tok::kColon},
    };
    absl::string_view rest = src_.substr(pos_);
    for (const Punct& p : kPuncts) {
      // `!$appeal` is "not $appeal", not JEXL's !$ followed by "appeal".
      if (p.tok == Tok::kEne && IdentChar(Peek(2))) continue;
      if (rest.substr(0, p.text.size()) == p.text) {
        t->type = p.tok;
        t->text = std::string(p.text);
        pos_ += p.text.size();
        return absl::OkStatus();
      }
    }
    if (c == '=') return Error(pos_, "unexpected '=' (use '==' to compare)");
    if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F) {
      return Error(pos_, absl::StrCat("unexpected character '", std::string(1, c), "'"));
    }
    return Error(pos_, absl::StrCat("unexpected byte 0x",
                                    absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2)));
  }

  absl::Status Number(Token* t) {
    size_t start = pos_;
    while (Digit(Peek())) ++pos_;
    bool is_float = false;
    if (Peek() == '.' && Digit(Peek(1))) {
      is_float = true;
      ++pos_;
      while (Digit(Peek())) ++pos_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      size_t save = pos_;
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (!Digit(Peek())) {
        pos_ = save;
      } else {
        is_float = true;
        while (Digit(Peek())) ++pos_;
      }
    }
    if (IdentStart(Peek())) return Error(pos_, "invalid number literal");
    std::string text(src_.substr(start, pos_ - start));
    if (is_float) {
      t->type = Tok::kFloat;
      t->dval = std::strtod(text.c_str(), nullptr);
      if (std::isinf(t->dval)) return Error(start, "number literal out of range");
      return absl::OkStatus();
    }
    t->type = Tok::kInt;
    int64_t v = 0;
    for (char d : text) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d - '0', &v)) {
        return Error(start, "integer literal out of range");
      }
    }
    t->ival = v;
    return absl::OkStatus();
  }

  // '…' or "…". Escapes: \\ \' \" \n \r \t \b \f \v \0 \xHH \uXXXX (UTF-16
  // pairs combine). Any other backslash is kept, so regexes like '\d+' work.
  absl::Status String(Token* t) {
    char quote = src_[pos_];
    size_t start = pos_++;
    t->type = Tok::kString;
    std::string& out = t->text;
    while (true) {
      if (pos_ >= src_.size()) return Error(start, "unterminated string literal");
      char c = src_[pos_];
      if (c == quote) {
        ++pos_;
        return absl::OkStatus();
      }
      if (c != '\\') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      size_t esc = pos_;
      char e = Peek(1);
      pos_ += 2;
      switch (e) {
        case '\\': out.push_back('\\'); break;
        case '\'': out.push_back('\''); break;
        case '"': out.push_back('"'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'v': out.push_back('\v'); break;
        case '0': out.push_back('\0'); break;
        case 'x': {
          int hi = HexDigit(Peek()), lo = HexDigit(Peek(1));
          if (hi < 0 || lo < 0) return Error(esc, "invalid \\x escape");
          out.push_back(static_cast<char>(hi * 16 + lo));
          pos_ += 2;
          break;
        }
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return Error(esc, "invalid \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo = 0;
            if (Peek() != '\\' || Peek(1) != 'u') return Error(esc, "unpaired surrogate");
            pos_ += 2;
            if (!Hex4(&lo) || lo < 0xDC00 || lo > 0xDFFF) return Error(esc, "unpaired surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Error(esc, "unpaired surrogate");
          }
          AppendUtf8(cp, &out);
          break;
        }
        case '\0':
          if (esc + 1 >= src_.size()) return Error(start, "unterminated string literal");
          [[fallthrough]];
        default:
          out.push_back('\\');
          out.push_back(e);
      }
    }
  }

  bool Hex4(uint32_t* cp) {
    for (int i = 0; i < 4; ++i) {
      int d = HexDigit(Peek());
      if (d < 0) return false;
      *cp = *cp * 16 + static_cast<uint32_t>(d);
      ++pos_;
    }
    return true;
  }

  absl::string_view src_;
  size_t pos_ = 0;
};

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
    if (!cond.ok() || Cur().type != Tok::kQuestion) return cond;
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
    while (n.ok()) {
      if (Cur().type == Tok::kDot) {
        Advance();
        if (!IsWord(Cur().type)) {
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
        if (n.ok()) (*n)->name = name.text;
      } else if (Cur().type == Tok::kLBracket) {
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
        {"empty", Builtin::kEmpty},
    };
    Builtin b = Builtin::kNone;
    for (const auto& [name, builtin] : kBuiltins) {
      if (id.text == name) b = builtin;
    }
    if (b == Builtin::kNone) {
      return ErrorAt(id.begin, absl::StrCat("unknown function '", id.text,
                                            "' (known: len, size, lower, upper, empty)"));
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

std::string FormatAt(absl::string_view source, size_t offset, absl::string_view what) {
  offset = std::min(offset, source.size());
  size_t nl = offset == 0 ? absl::string_view::npos : source.rfind('\n', offset - 1);
  size_t line_start = nl == absl::string_view::npos ? 0 : nl + 1;
  size_t line_end = source.find('\n', line_start);
  if (line_end == absl::string_view::npos) line_end = source.size();
  int line = 1;
  for (size_t i = 0; i < line_start; ++i) line += source[i] == '\n';
  size_t column = offset - line_start + 1;
  std::string out(what);
  if (source.find('\n') != absl::string_view::npos) {
    absl::StrAppend(&out, " at line ", line, ", column ", column);
  } else {
    absl::StrAppend(&out, " at column ", column);
  }
  absl::string_view text = source.substr(line_start, line_end - line_start);
  absl::StrAppend(&out, "\n", text, "\n");
  for (size_t i = 0; i + 1 < column; ++i) out.push_back(text[i] == '\t' ? '\t' : ' ');
  out.push_back('^');
  return out;
}

absl::StatusOr<std::unique_ptr<Node>> Parse(absl::string_view source) {
  if (source.size() > (1u << 20)) {
    return absl::InvalidArgumentError("expression longer than 1 MiB");
  }
  auto toks = Lexer(source).Run();
  if (!toks.ok()) return toks.status();
  return Parser(source, *std::move(toks)).Run();
}

}  // namespace sluice::expr::internal
