#include "common/gotemplate/lex.h"

#include <cstring>
#include <map>

namespace sluice::gotemplate {
namespace {

constexpr int kEof = -1;

bool IsSpace(int r) { return r == ' ' || r == '\t' || r == '\r' || r == '\n'; }
// Bytes of multi-byte UTF-8 runes count as letters (Go asks unicode.IsLetter).
bool IsAlphaNumeric(int r) {
  return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') ||
         r >= 0x80;
}
bool HasLeftTrimMarker(const std::string& s, size_t at) {
  return at + 2 <= s.size() && s[at] == '-' && IsSpace(static_cast<unsigned char>(s[at + 1]));
}
bool HasRightTrimMarker(const std::string& s, size_t at) {
  return at + 2 <= s.size() && IsSpace(static_cast<unsigned char>(s[at])) && s[at + 1] == '-';
}
bool HasPrefixAt(const std::string& s, size_t at, const std::string& p) {
  return at <= s.size() && s.compare(at, p.size(), p) == 0 && s.size() - at >= p.size();
}

enum class State { kText, kLeftDelim, kComment, kRightDelim, kInside, kSpace, kDone };

class Lexer {
 public:
  Lexer(const std::string& in, std::string l, std::string r)
      : in_(in), ld_(l.empty() ? "{{" : std::move(l)), rd_(r.empty() ? "}}" : std::move(r)) {}

  std::vector<Item> Run() {
    State s = State::kText;
    while (s != State::kDone) {
      switch (s) {
        case State::kText: s = LexText(); break;
        case State::kLeftDelim: s = LexLeftDelim(); break;
        case State::kComment: s = LexComment(); break;
        case State::kRightDelim: s = LexRightDelim(); break;
        case State::kInside: s = LexInside(); break;
        case State::kSpace: s = LexSpace(); break;
        case State::kDone: break;
      }
    }
    return std::move(items_);
  }

 private:
  int LineAt(size_t pos) {
    while (line_pos_ < pos && line_pos_ < in_.size()) {
      if (in_[line_pos_] == '\n') ++line_;
      ++line_pos_;
    }
    return line_;
  }
  int Next() {
    if (pos_ >= in_.size()) {
      width_ = 0;
      return kEof;
    }
    width_ = 1;
    return static_cast<unsigned char>(in_[pos_++]);
  }
  void Backup() { pos_ -= width_; width_ = 0; }
  int Peek() {
    int r = Next();
    Backup();
    return r;
  }
  void Emit(ItemType t) {
    items_.push_back({t, start_, in_.substr(start_, pos_ - start_), LineAt(start_)});
    start_ = pos_;
  }
  void Ignore() { start_ = pos_; }
  State Error(std::string msg) {
    items_.push_back({ItemType::kError, start_, std::move(msg), LineAt(start_)});
    return State::kDone;
  }
  bool Accept(const char* valid) {
    int r = Next();
    if (r != kEof && std::strchr(valid, r) != nullptr) return true;
    Backup();
    return false;
  }
  void AcceptRun(const char* valid) {
    for (;;) {
      int r = Next();
      if (r == kEof || std::strchr(valid, r) == nullptr) break;
    }
    Backup();
  }
  bool AtRightDelim(bool* trim) {
    if (HasRightTrimMarker(in_, pos_) && HasPrefixAt(in_, pos_ + 2, rd_)) {
      *trim = true;
      return true;
    }
    *trim = false;
    return HasPrefixAt(in_, pos_, rd_);
  }
  bool AtTerminator() {
    int r = Peek();
    if (IsSpace(r)) return true;
    switch (r) {
      case kEof: case '.': case ',': case '|': case ':': case ')': case '(':
        return true;
    }
    return HasPrefixAt(in_, pos_, rd_);
  }

  State LexText() {
    size_t x = in_.find(ld_, pos_);
    if (x != std::string::npos) {
      pos_ = x;
      size_t trim = 0;
      if (HasLeftTrimMarker(in_, pos_ + ld_.size())) {
        size_t p = pos_;
        while (p > start_ && IsSpace(static_cast<unsigned char>(in_[p - 1]))) --p;
        trim = pos_ - p;
      }
      pos_ -= trim;
      if (pos_ > start_) Emit(ItemType::kText);
      pos_ += trim;
      Ignore();
      return State::kLeftDelim;
    }
    pos_ = in_.size();
    if (pos_ > start_) Emit(ItemType::kText);
    Emit(ItemType::kEOF);
    return State::kDone;
  }
  State LexLeftDelim() {
    pos_ += ld_.size();
    bool trim = HasLeftTrimMarker(in_, pos_);
    size_t after = trim ? 2 : 0;
    if (HasPrefixAt(in_, pos_ + after, "/*")) {
      pos_ += after;
      Ignore();
      return State::kComment;
    }
    Emit(ItemType::kLeftDelim);
    pos_ += after;
    Ignore();
    paren_ = 0;
    return State::kInside;
  }
  State LexComment() {
    pos_ += 2;
    size_t i = in_.find("*/", pos_);
    if (i == std::string::npos) return Error("unclosed comment");
    pos_ = i + 2;
    bool trim;
    if (!AtRightDelim(&trim)) return Error("comment ends before closing delimiter");
    if (trim) pos_ += 2;
    pos_ += rd_.size();
    if (trim) {
      while (pos_ < in_.size() && IsSpace(static_cast<unsigned char>(in_[pos_]))) ++pos_;
    }
    Ignore();
    return State::kText;
  }
  State LexRightDelim() {
    bool trim = HasRightTrimMarker(in_, pos_);
    if (trim) {
      pos_ += 2;
      Ignore();
    }
    pos_ += rd_.size();
    Emit(ItemType::kRightDelim);
    if (trim) {
      while (pos_ < in_.size() && IsSpace(static_cast<unsigned char>(in_[pos_]))) ++pos_;
      Ignore();
    }
    return State::kText;
  }
  State LexInside() {
    bool trim;
    if (AtRightDelim(&trim)) {
      if (paren_ == 0) return State::kRightDelim;
      return Error("unclosed left paren");
    }
    int r = Next();
    if (r == kEof) return Error("unclosed action");
    if (IsSpace(r)) {
      Backup();
      return State::kSpace;
    }
    switch (r) {
      case '=':
        Emit(ItemType::kAssign);
        return State::kInside;
      case ':':
        if (Next() != '=') return Error("expected :=");
        Emit(ItemType::kDeclare);
        return State::kInside;
      case '|':
        Emit(ItemType::kPipe);
        return State::kInside;
      case '"':
        return LexQuote();
      case '`':
        return LexRawQuote();
      case '$':
        if (AtTerminator()) {
          Emit(ItemType::kVariable);
          return State::kInside;
        }
        return LexFieldOrVariable(ItemType::kVariable);
      case '\'':
        return LexChar();
      case '(':
        Emit(ItemType::kLeftParen);
        ++paren_;
        return State::kInside;
      case ')':
        Emit(ItemType::kRightParen);
        if (--paren_ < 0) return Error("unexpected right paren U+0029 ')'");
        return State::kInside;
    }
    if (r == '.') {
      if (pos_ < in_.size() && (in_[pos_] < '0' || in_[pos_] > '9')) {
        return LexFieldOrVariable(ItemType::kField);
      }
      Backup();
      return LexNumber();
    }
    if (r == '+' || r == '-' || (r >= '0' && r <= '9')) {
      Backup();
      return LexNumber();
    }
    if (IsAlphaNumeric(r)) {
      Backup();
      return LexIdentifier();
    }
    if (r < 0x80 && r >= 0x20 && r != 0x7f) {
      Emit(ItemType::kChar);
      return State::kInside;
    }
    return Error("unrecognized character in action");
  }
  State LexSpace() {
    int n = 0;
    while (IsSpace(Peek())) {
      Next();
      ++n;
    }
    if (HasRightTrimMarker(in_, pos_ - 1) && HasPrefixAt(in_, pos_ - 1 + 2, rd_)) {
      --pos_;
      if (n == 1) return State::kRightDelim;
    }
    Emit(ItemType::kSpace);
    return State::kInside;
  }
  State LexIdentifier() {
    static const std::map<std::string, ItemType> kKeys = {
        {"block", ItemType::kBlock}, {"break", ItemType::kBreak}, {"continue", ItemType::kContinue},
        {"define", ItemType::kDefine}, {"else", ItemType::kElse}, {"end", ItemType::kEnd},
        {"if", ItemType::kIf}, {"range", ItemType::kRange}, {"nil", ItemType::kNil},
        {"template", ItemType::kTemplate}, {"with", ItemType::kWith}};
    while (IsAlphaNumeric(Next())) {
    }
    Backup();
    std::string word = in_.substr(start_, pos_ - start_);
    if (!AtTerminator()) return Error("bad character");
    auto it = kKeys.find(word);
    if (it != kKeys.end()) {
      Emit(it->second);
    } else if (word == "true" || word == "false") {
      Emit(ItemType::kBool);
    } else {
      Emit(ItemType::kIdentifier);
    }
    return State::kInside;
  }
  State LexFieldOrVariable(ItemType t) {
    if (AtTerminator()) {
      Emit(t == ItemType::kVariable ? ItemType::kVariable : ItemType::kDot);
      return State::kInside;
    }
    while (IsAlphaNumeric(Next())) {
    }
    Backup();
    if (!AtTerminator()) return Error("bad character");
    Emit(t);
    return State::kInside;
  }
  State LexChar() {
    for (;;) {
      int r = Next();
      if (r == '\\') {
        int e = Next();
        if (e != kEof && e != '\n') continue;
        return Error("unterminated character constant");
      }
      if (r == kEof || r == '\n') return Error("unterminated character constant");
      if (r == '\'') break;
    }
    Emit(ItemType::kCharConstant);
    return State::kInside;
  }
  bool ScanNumber() {
    Accept("+-");
    const char* digits = "0123456789_";
    if (Accept("0")) {
      if (Accept("xX")) {
        digits = "0123456789abcdefABCDEF_";
      } else if (Accept("oO")) {
        digits = "01234567_";
      } else if (Accept("bB")) {
        digits = "01_";
      }
    }
    AcceptRun(digits);
    if (Accept(".")) AcceptRun(digits);
    if (std::strlen(digits) == 11 && Accept("eE")) {
      Accept("+-");
      AcceptRun("0123456789_");
    }
    if (std::strlen(digits) == 23 && Accept("pP")) {
      Accept("+-");
      AcceptRun("0123456789_");
    }
    Accept("i");
    if (IsAlphaNumeric(Peek())) {
      Next();
      return false;
    }
    return true;
  }
  State LexNumber() {
    if (!ScanNumber()) return Error("bad number syntax: \"" + in_.substr(start_, pos_ - start_) + "\"");
    int sign = Peek();
    if (sign == '+' || sign == '-') {
      if (!ScanNumber() || in_[pos_ - 1] != 'i') {
        return Error("bad number syntax: \"" + in_.substr(start_, pos_ - start_) + "\"");
      }
      Emit(ItemType::kComplex);
    } else {
      Emit(ItemType::kNumber);
    }
    return State::kInside;
  }
  State LexQuote() {
    for (;;) {
      int r = Next();
      if (r == '\\') {
        int e = Next();
        if (e != kEof && e != '\n') continue;
        return Error("unterminated quoted string");
      }
      if (r == kEof || r == '\n') return Error("unterminated quoted string");
      if (r == '"') break;
    }
    Emit(ItemType::kString);
    return State::kInside;
  }
  State LexRawQuote() {
    for (;;) {
      int r = Next();
      if (r == kEof) return Error("unterminated raw quoted string");
      if (r == '`') break;
    }
    Emit(ItemType::kRawString);
    return State::kInside;
  }

  const std::string& in_;
  std::string ld_, rd_;
  size_t pos_ = 0, start_ = 0, width_ = 0;
  size_t line_pos_ = 0;
  int line_ = 1;
  int paren_ = 0;
  std::vector<Item> items_;
};

}  // namespace

std::vector<Item> Lex(const std::string& input, const std::string& left, const std::string& right) {
  return Lexer(input, left, right).Run();
}

}  // namespace sluice::gotemplate
