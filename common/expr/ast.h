// Internal: the syntax tree produced by the parser and walked by the evaluator.
// A tree is immutable after parsing except for the per-node field caches, which
// are internally synchronized, so one tree may be evaluated from many threads.
#ifndef SLUICE_COMMON_EXPR_AST_H_
#define SLUICE_COMMON_EXPR_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/expr/access.h"
#include "common/expr/value.h"
#include "re2/re2.h"

namespace sluice::expr::internal {

enum class NodeKind : uint8_t {
  kLiteral,  // literal (incl. constant-folded list literals)
  kIdent,    // root identifier: name
  kMember,   // children[0].name (no parentheses)
  kMethod,   // children[0].name(children[1..])
  kIndex,    // children[0][children[1]]
  kCall,     // builtin(children...)
  kList,     // [children...] with non-constant elements
  kUnary,    // op children[0]
  kBinary,   // children[0] op children[1]
  kAnd,      // short-circuit
  kOr,       // short-circuit
  kTernary,  // children[0] ? children[1] : children[2]
  kCoalesce, // children[0] ?? children[1]: the right side only when the left is null
  kElvis,    // children[0] ?: children[1]: the right side only when the left is a zero value
};

enum class Op : uint8_t {
  kNone, kNeg, kNot, kAdd, kSub, kMul, kDiv, kMod, kEq, kNe, kLt, kLe, kGt, kGe,
  kIn, kContains, kStartsWith, kEndsWith, kMatches,
  kJexlMatch,  // JEXL =~ : regex full match for a string pattern, else membership
};

enum class Builtin : uint8_t { kNone, kLen, kLower, kUpper, kEmpty, kInt };

struct Node {
  NodeKind kind = NodeKind::kLiteral;
  Op op = Op::kNone;
  Builtin builtin = Builtin::kNone;
  bool negate = false;  // "not in", "not contains", ...
  // kMember / kMethod / kIndex at or after a `?.` in a chain: a null
  // receiver gives null instead of an error.
  bool nil_safe = false;
  // Source span [begin, end) in bytes; error messages quote it.
  uint32_t begin = 0;
  uint32_t end = 0;
  // Height of this subtree (1 for a leaf); bounded so evaluation cannot overflow the stack.
  int height = 1;
  std::string name;  // identifier, member, method or function name
  Value literal;     // kLiteral
  std::vector<std::unique_ptr<Node>> children;
  std::unique_ptr<RE2> regex;  // kMatches / kJexlMatch with a literal pattern, compiled once
  FieldCache cache;            // kMember / kMethod on messages
};

// Limits that keep hostile input from exhausting the stack.
inline constexpr int kMaxNesting = 100;  // parentheses, unary operators, brackets
inline constexpr int kMaxHeight = 500;   // tree height (long operator chains)

// Parses `source`. Errors are InvalidArgument: "<what> at column N" (or "line L,
// column N" for multi-line input), then the source line and a caret line.
absl::StatusOr<std::unique_ptr<Node>> Parse(absl::string_view source);

}  // namespace sluice::expr::internal

#endif  // SLUICE_COMMON_EXPR_AST_H_
