// The lexer of Go's text/template (Go 1.19 text/template/parse/lex.go):
// text and actions with configurable delimiters, trim markers, comments.
#ifndef SLUICE_COMMON_GOTEMPLATE_LEX_H_
#define SLUICE_COMMON_GOTEMPLATE_LEX_H_

#include <string>
#include <vector>

namespace sluice::gotemplate {

enum class ItemType {
  kError, kBool, kChar, kCharConstant, kComplex, kAssign, kDeclare, kEOF, kField,
  kIdentifier, kLeftDelim, kLeftParen, kNumber, kPipe, kRawString, kRightDelim,
  kRightParen, kSpace, kString, kText, kVariable,
  // keywords
  kBlock, kBreak, kContinue, kDot, kDefine, kElse, kEnd, kIf, kNil, kRange, kTemplate, kWith,
};

// One token: its type, text (the message for kError) and 1-based line.
struct Item {
  ItemType type;
  size_t pos;
  std::string val;
  int line;
};

// Tokens of `input`, ending with kEOF or, at the first lexical error, one
// kError item carrying Go's message ("unclosed action", ...).
std::vector<Item> Lex(const std::string& input, const std::string& left, const std::string& right);

}  // namespace sluice::gotemplate

#endif  // SLUICE_COMMON_GOTEMPLATE_LEX_H_
