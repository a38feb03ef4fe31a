// Go literal syntax used by templates: strconv.Unquote for "..." / `...` /
// '...' literals and text/template/parse's number constants.
#ifndef SLUICE_COMMON_GOTEMPLATE_UNQUOTE_H_
#define SLUICE_COMMON_GOTEMPLATE_UNQUOTE_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/gotemplate/parse.h"

namespace sluice::gotemplate {

// strconv.Unquote of a double-quoted or raw (backquoted) Go string literal:
// escapes \a \b \f \n \r \t \v \\ \" \xHH \ooo \uHHHH \UHHHHHHHH; raw
// literals lose their '\r'. InvalidArgument "invalid syntax" otherwise.
absl::StatusOr<std::string> Unquote(const std::string& lit);

// The rune of a character constant ('a', '\n', '\u00e9').
absl::StatusOr<int64_t> UnquoteChar(const std::string& lit);

// A number constant as text/template/parse's newNumber reads it (ints with
// 0x/0o/0b/0 prefixes and '_', floats, character constants). Complex
// constants are refused (InvalidArgument): Sluice has no complex values.
absl::StatusOr<Number> ParseNumber(const std::string& text, bool is_char, bool is_complex);

// UTF-8 encoding of a code point (U+FFFD for invalid ones).
std::string EncodeRune(int64_t r);

}  // namespace sluice::gotemplate

#endif  // SLUICE_COMMON_GOTEMPLATE_UNQUOTE_H_
