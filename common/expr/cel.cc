#include "common/expr/cel.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/expr/ast.h"

namespace sluice::expr {
namespace {

using internal::Builtin;
using internal::Node;
using internal::NodeKind;
using internal::Op;

constexpr absl::string_view kBound = "cel_message_";

bool IdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}

// Replaces the qualified `variable` by kBound outside string literals, at
// identifier boundaries (the engine's identifiers have no dots).
std::string Rewrite(absl::string_view source, absl::string_view variable) {
  std::string out;
  char quote = 0;
  for (size_t i = 0; i < source.size();) {
    char c = source[i];
    if (quote != 0) {
      out.push_back(c);
      if (c == '\\' && i + 1 < source.size()) {
        out.push_back(source[i + 1]);
        i += 2;
        continue;
      }
      if (c == quote) quote = 0;
      ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      out.push_back(c);
      ++i;
      continue;
    }
    bool boundary_before = i == 0 || (!IdentChar(source[i - 1]) && source[i - 1] != '.');
    if (boundary_before && source.substr(i, variable.size()) == variable &&
        (i + variable.size() == source.size() || !IdentChar(source[i + variable.size()]))) {
      out.append(kBound.data(), kBound.size());
      i += variable.size();
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

bool IsMacro(const Node& n) {
  return n.kind == NodeKind::kMethod && n.children.size() == 3 &&
         n.children[1]->kind == NodeKind::kIdent &&
         (n.name == "exists" || n.name == "all" || n.name == "exists_one");
}

absl::Status Refuse(const Node& n, absl::string_view source, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(what, " is not in the supported CEL subset, in `",
                                                 source.substr(n.begin, n.end - n.begin),
                                                 "` at column ", n.begin + 1));
}

absl::Status Check(const Node& n, absl::string_view source, absl::string_view original_variable,
                   std::vector<std::string>* bound) {
  if (n.nil_safe) return Refuse(n, source, "`?.`");
  switch (n.kind) {
    case NodeKind::kLiteral:
    case NodeKind::kList:
    case NodeKind::kMember:
    case NodeKind::kIndex:
    case NodeKind::kAnd:
    case NodeKind::kOr:
    case NodeKind::kTernary:
      break;
    case NodeKind::kIdent:
      if (n.name == kBound) return absl::OkStatus();
      if (std::find(bound->begin(), bound->end(), n.name) != bound->end()) return absl::OkStatus();
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown variable '", n.name, "' at column ", n.begin + 1, "; the response is ",
          original_variable));
    case NodeKind::kMethod:
      if (IsMacro(n)) {
        if (auto s = Check(*n.children[0], source, original_variable, bound); !s.ok()) return s;
        bound->push_back(n.children[1]->name);
        absl::Status s = Check(*n.children[2], source, original_variable, bound);
        bound->pop_back();
        return s;
      }
      if (n.name == "size" && n.children.size() == 1) break;
      return Refuse(n, source, absl::StrCat("method '", n.name, "'"));
    case NodeKind::kCall:
      if ((n.builtin == Builtin::kLen && n.name == "size") || n.builtin == Builtin::kInt) break;
      return Refuse(n, source, absl::StrCat("function '", n.name, "'"));
    case NodeKind::kUnary:
      if (n.op == Op::kNot || n.op == Op::kNeg) break;
      return Refuse(n, source, "this operator");
    case NodeKind::kBinary:
      switch (n.op) {
        case Op::kEq: case Op::kNe: case Op::kLt: case Op::kLe: case Op::kGt: case Op::kGe:
        case Op::kAdd: case Op::kSub: case Op::kMul: case Op::kDiv: case Op::kMod:
          break;
        case Op::kIn:
          if (!n.negate) break;
          return Refuse(n, source, "`not in`");
        default:
          return Refuse(n, source, "this operator");
      }
      break;
    case NodeKind::kCoalesce:
    case NodeKind::kElvis:
      return Refuse(n, source, "`??`/`?:`");
  }
  for (const auto& c : n.children) {
    if (auto s = Check(*c, source, original_variable, bound); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CelExpression> CelExpression::Compile(absl::string_view source,
                                                     absl::string_view variable,
                                                     const google::protobuf::Descriptor* type) {
  CelExpression e;
  e.source_ = std::string(source);
  e.bound_ = std::string(kBound);
  auto program = Program::Compile(Rewrite(source, variable));
  if (!program.ok()) return program.status();
  std::vector<std::string> bound;
  const std::string& rewritten = (*program)->source();
  if (auto s = Check(*(*program)->root_, rewritten, variable, &bound); !s.ok()) return s;
  if (type != nullptr) {
    if (auto s = (*program)->CheckMessageType(kBound, type); !s.ok()) return s;
  }
  e.program_ = *std::move(program);
  return e;
}

absl::StatusOr<bool> CelExpression::Evaluate(const google::protobuf::Message& message) const {
  Environment env;
  env.BindMessage(bound_, &message);
  return program_->EvaluateBool(env);
}

}  // namespace sluice::expr
