// Lexer: identifiers (may start with '$'), keywords, numbers, strings with
// escapes, and operator punctuation, each with its source span.
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/expr/lexer.h"

namespace sluice::expr::internal {

namespace {

Tok Keyword(absl::string_view w) {
  static const std::pair<absl::string_view, Tok> kWords[] = {
      {"true", Tok::kTrue},         {"false", Tok::kFalse},
      {"nil", Tok::kNull},          {"null", Tok::kNull},
      {"and", Tok::kAnd},           {"or", Tok::kOr},
      {"not", Tok::kNot},           {"in", Tok::kIn},
      {"contains", Tok::kContains}, {"startsWith", Tok::kStartsWith},
      {"endsWith", Tok::kEndsWith}, {"matches", Tok::kMatches},
      // JEXL's word operators.
      {"eq", Tok::kEq},             {"ne", Tok::kNe},
      {"lt", Tok::kLt},             {"le", Tok::kLe},
      {"gt", Tok::kGt},             {"ge", Tok::kGe},
      {"div", Tok::kSlash},         {"mod", Tok::kPercent},
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
        {"??", Tok::kCoalesce}, {"?.", Tok::kSafeDot}, {"?:", Tok::kElvis},
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

}  // namespace

absl::StatusOr<std::vector<Token>> Lex(absl::string_view source) { return Lexer(source).Run(); }

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

}  // namespace sluice::expr::internal
