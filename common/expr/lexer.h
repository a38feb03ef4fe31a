// Internal: tokens of the expression language.
#ifndef SLUICE_COMMON_EXPR_LEXER_H_
#define SLUICE_COMMON_EXPR_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice::expr::internal {

enum class Tok : uint8_t {
  kEnd, kInt, kFloat, kString, kIdent,
  // keywords
  kTrue, kFalse, kNull, kAnd, kOr, kNot, kIn, kContains, kStartsWith, kEndsWith, kMatches,
  // punctuation
  kPlus, kMinus, kStar, kSlash, kPercent, kEq, kNe, kLt, kLe, kGt, kGe, kBang,
  kLParen, kRParen, kLBracket, kRBracket, kComma, kDot, kQuestion, kColon,
  // JEXL: =~ (matches / in), =^ (startsWith), =$ (endsWith) and negations
  kReq, kRne, kSeq, kSne, kEeq, kEne,
  // ?? (null coalescing), ?. (nil-safe navigation), ?: (elvis)
  kCoalesce, kSafeDot, kElvis,
};

struct Token {
  Tok type = Tok::kEnd;
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string text;  // identifier / keyword spelling, or decoded string literal
  int64_t ival = 0;
  double dval = 0;
};

// True for identifiers and keywords (both may follow '.').
inline bool IsWord(Tok t) { return t == Tok::kIdent || (t >= Tok::kTrue && t <= Tok::kMatches); }
// IsWord, or a word spelling of an operator (JEXL's `eq`, `div`, ...), so
// `x.eq` still reads field "eq".
inline bool IsWord(const Token& t) {
  if (IsWord(t.type)) return true;
  char c = t.text.empty() ? '\0' : t.text[0];
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Splits `source` into tokens ending with kEnd. Errors are InvalidArgument
// formatted by FormatAt (column + caret snippet).
absl::StatusOr<std::vector<Token>> Lex(absl::string_view source);

// Formats an error at byte `offset` of `source`: "<what> at column N" (or "at
// line L, column N" for multi-line input), then the source line and a caret line.
std::string FormatAt(absl::string_view source, size_t offset, absl::string_view what);

}  // namespace sluice::expr::internal

#endif  // SLUICE_COMMON_EXPR_LEXER_H_
