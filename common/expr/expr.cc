#include "common/expr/expr.h"

#include <algorithm>

#include <cctype>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/expr/access.h"
#include "common/expr/ast.h"
#include "common/expr/eval.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace sluice::expr {

namespace pb = google::protobuf;
using internal::Node;
using internal::NodeKind;

Environment& Environment::BindValue(absl::string_view name, Value value) {
  for (auto& [n, v] : bindings_) {
    if (n == name) {
      v = std::move(value);
      return *this;
    }
  }
  bindings_.emplace_back(name, std::move(value));
  return *this;
}

Environment& Environment::BindJson(absl::string_view name, const nlohmann::json* doc) {
  return BindValue(name, Value::Json(doc));
}

Environment& Environment::BindMessage(absl::string_view name, const pb::Message* message) {
  return BindValue(name, Value::Message(message));
}

const Value* Environment::Lookup(absl::string_view name) const {
  for (const auto& [n, v] : bindings_) {
    if (n == name) return &v;
  }
  return nullptr;
}

Program::Program() = default;
Program::~Program() = default;

namespace {

// True for CEL's comprehension macros, `list.exists(x, p)` and kin: `x` is
// a name bound inside `p`, not a root.
bool IsMacro(const Node& n) {
  return n.kind == NodeKind::kMethod && n.children.size() == 3 &&
         n.children[1]->kind == NodeKind::kIdent &&
         (n.name == "exists" || n.name == "all" || n.name == "exists_one");
}

void CollectRoots(const Node& n, absl::flat_hash_set<std::string>* seen,
                  std::vector<std::string>* out, std::vector<std::string>* bound) {
  if (n.kind == NodeKind::kIdent) {
    bool is_bound = std::find(bound->begin(), bound->end(), n.name) != bound->end();
    if (!is_bound && seen->insert(n.name).second) out->push_back(n.name);
    return;
  }
  if (IsMacro(n)) {
    CollectRoots(*n.children[0], seen, out, bound);
    bound->push_back(n.children[1]->name);
    CollectRoots(*n.children[2], seen, out, bound);
    bound->pop_back();
    return;
  }
  for (const auto& c : n.children) CollectRoots(*c, seen, out, bound);
}

// Static message type of `n` when it is a member chain rooted at `variable`
// (nullptr when unknown); records the first unknown-field error in `error`.
const pb::Descriptor* StaticType(const Node& n, absl::string_view variable,
                                 const pb::Descriptor* type, absl::string_view source,
                                 absl::Status* error) {
  const pb::Descriptor* recv = nullptr;
  if (n.kind == NodeKind::kIdent) return n.name == variable ? type : nullptr;
  for (size_t i = 0; i < n.children.size(); ++i) {
    const pb::Descriptor* t = StaticType(*n.children[i], variable, type, source, error);
    if (i == 0) recv = t;
  }
  if (recv == nullptr || !error->ok()) return nullptr;
  if (n.kind != NodeKind::kMember && n.kind != NodeKind::kMethod) return nullptr;
  int nargs = n.kind == NodeKind::kMember ? -1 : static_cast<int>(n.children.size()) - 1;
  absl::StatusOr<internal::ResolvedField> f = internal::ResolveField(recv, n.name, nargs);
  if (!f.ok()) {
    *error = absl::InvalidArgumentError(
        absl::StrCat(f.status().message(), " in `", source.substr(n.begin, n.end - n.begin),
                     "` at column ", n.begin + 1));
    return nullptr;
  }
  bool single = f->access == internal::FieldAccess::kElement ||
                (f->access == internal::FieldAccess::kValue && !f->field->is_repeated());
  return single ? f->field->message_type() : nullptr;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Program>> Program::Compile(absl::string_view source) {
  std::shared_ptr<Program> p(new Program());
  p->source_ = std::string(source);
  absl::StatusOr<std::unique_ptr<Node>> root = internal::Parse(p->source_);
  if (!root.ok()) return root.status();
  p->root_ = *std::move(root);
  absl::flat_hash_set<std::string> seen;
  std::vector<std::string> bound;
  CollectRoots(*p->root_, &seen, &p->roots_, &bound);
  return std::shared_ptr<const Program>(std::move(p));
}

absl::StatusOr<Value> Program::Evaluate(const Environment& env) const {
  return internal::Evaluate(*root_, source_, env);
}

absl::StatusOr<bool> Program::EvaluateBool(const Environment& env) const {
  absl::StatusOr<Value> v = Evaluate(env);
  if (!v.ok()) return v.status();
  if (v->kind() != Value::Kind::kBool) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expression must evaluate to a bool, got ", v->kind_name(), ": `", source_, "`"));
  }
  return v->bool_value();
}

absl::StatusOr<bool> Program::EvaluateTruthy(const Environment& env) const {
  absl::StatusOr<Value> v = Evaluate(env);
  if (!v.ok()) return v.status();
  return !v->IsZero();
}

std::vector<std::string> Program::RootIdentifiers() const { return roots_; }

absl::Status Program::CheckMessageType(absl::string_view variable,
                                       const pb::Descriptor* type) const {
  absl::Status error;
  StaticType(*root_, variable, type, source_, &error);
  return error;
}

std::string ProtoVariableName(const pb::Descriptor* type) {
  std::string name = type->name();
  if (!name.empty()) name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
  return name;
}

nlohmann::json ToJson(const Value& value) { return value.ToJson(); }

}  // namespace sluice::expr
