// Internal: evaluation of a parsed tree.
#ifndef SLUICE_COMMON_EXPR_EVAL_H_
#define SLUICE_COMMON_EXPR_EVAL_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/expr/ast.h"
#include "common/expr/expr.h"

namespace sluice::expr::internal {

// Evaluates `root` (parsed from `source`, which error messages quote) in `env`.
absl::StatusOr<Value> Evaluate(const Node& root, absl::string_view source,
                               const Environment& env);

}  // namespace sluice::expr::internal

#endif  // SLUICE_COMMON_EXPR_EVAL_H_
