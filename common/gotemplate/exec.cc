// The executor follows Go 1.19's text/template/exec.go. Errors, {{break}}
// and {{continue}} unwind with exceptions private to this file, as Go's
// executor panics and recovers; Execute returns absl::Status.
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/gotemplate/funcs.h"
#include "common/gotemplate/gotemplate.h"

namespace sluice::gotemplate {
namespace {

struct ExecError {
  absl::Status status;
};
struct BreakSignal {};
struct ContinueSignal {};

// missingVal of Go: "no final argument" is std::nullopt.
using Final = std::optional<Value>;

bool CanBeNil(Param p) { return p != Param::kString && p != Param::kInt && p != Param::kFloat && p != Param::kBool; }

class State {
 public:
  State(const TreeSet& trees, const Limits& limits, std::string name)
      : trees_(trees), limits_(limits), name_(std::move(name)),
        deadline_(std::chrono::steady_clock::now() + limits.max_time) {}

  std::string Run(const Tree& tree, const Value& dot) {
    vars_.push_back({"$", dot});
    Walk(dot, tree.root);
    return std::move(out_);
  }

 private:
  [[noreturn]] void Errorf(const std::string& msg) {
    throw ExecError{absl::InvalidArgumentError(
        absl::StrCat("template: ", name_, ":", line_, ": executing \"", name_, "\": ", msg))};
  }
  [[noreturn]] void Exhausted(const std::string& what) {
    throw ExecError{absl::ResourceExhaustedError(absl::StrCat("template: ", name_, ": ", what))};
  }
  void At(const Node& n) {
    line_ = n.line;
    if (++steps_ % 1024 == 0 && std::chrono::steady_clock::now() > deadline_) {
      Exhausted("execution took longer than " + std::to_string(limits_.max_time.count()) + "ms");
    }
  }
  void Write(const std::string& s) {
    if (out_.size() + s.size() > limits_.max_output_bytes) {
      Exhausted("output exceeds " + std::to_string(limits_.max_output_bytes) + " bytes");
    }
    out_ += s;
  }

  void Walk(const Value& dot, const std::vector<NodePtr>& list) {
    for (const auto& n : list) WalkNode(dot, *n);
  }

  // Bounds the C++ stack: {{template}} depth times control nesting could
  // otherwise recurse 200 x 100 levels deep from a 1 KiB template.
  struct NestingGuard {
    State* s;
    explicit NestingGuard(State* state) : s(state) {
      if (++s->nesting_ > kMaxNesting) {
        s->Exhausted("template nesting deeper than " + std::to_string(kMaxNesting) + " levels at run time");
      }
    }
    ~NestingGuard() { --s->nesting_; }
  };
  static constexpr int kMaxNesting = 1000;

  void WalkNode(const Value& dot, const Node& n) {
    At(n);
    NestingGuard guard(this);
    switch (n.kind) {
      case NodeKind::kText:
        Write(n.text);
        return;
      case NodeKind::kAction: {
        Value v = EvalPipeline(dot, n.pipe.get());
        if (n.pipe->decl.empty()) PrintValue(v);
        return;
      }
      case NodeKind::kIf:
      case NodeKind::kWith: {
        size_t mark = vars_.size();
        Value v = EvalPipeline(dot, n.pipe.get());
        if (IsTrue(v)) {
          Walk(n.kind == NodeKind::kWith ? v : dot, n.list);
        } else if (n.has_else) {
          Walk(dot, n.else_list);
        }
        vars_.resize(mark);
        return;
      }
      case NodeKind::kRange:
        WalkRange(dot, n);
        return;
      case NodeKind::kTemplate:
        WalkTemplate(dot, n);
        return;
      case NodeKind::kBreak:
        throw BreakSignal{};
      case NodeKind::kContinue:
        throw ContinueSignal{};
      case NodeKind::kComment:
        return;
      default:
        Errorf("unknown node");
    }
  }

  void PrintValue(const Value& v0) {
    Value v = v0;
    if (v.type == GoType::kRootPtr) {
      v = Value::FromJson(v.j);  // indirect through the pointer; a nil interface stays valid
    }
    if (!v.valid()) {
      Write("<no value>");
      return;
    }
    Write(FormatValue(v));
  }

  void WalkRange(const Value& dot, const Node& r) {
    size_t outer = vars_.size();
    Value val = EvalPipeline(dot, r.pipe.get());
    if (val.type == GoType::kRootPtr) val = Value::FromJson(val.j);
    size_t mark = vars_.size();
    bool ran = false;
    auto one = [&](const Value& index, const Value& elem) {
      if (!r.pipe->decl.empty()) vars_[vars_.size() - 1].second = elem;
      if (r.pipe->decl.size() > 1) vars_[vars_.size() - 2].second = index;
      try {
        Walk(elem, r.list);
      } catch (const ContinueSignal&) {
      }
      vars_.resize(mark);
    };
    try {
      switch (val.type) {
        case GoType::kAnySlice:
        case GoType::kStringSlice:
          for (size_t i = 0; i < val.j.size(); ++i) {
            ran = true;
            Value elem = val.type == GoType::kStringSlice ? Value::String(val.j[i].get<std::string>())
                                                          : Value::FromJson(val.j[i]);
            one(Value::Int(static_cast<int64_t>(i)), elem);
          }
          break;
        case GoType::kMap:
        case GoType::kStringMap:
          for (const auto& [k, v] : val.j.items()) {
            ran = true;
            one(Value::String(k), val.type == GoType::kStringMap ? Value::String(v.get<std::string>())
                                                                 : Value::FromJson(v));
          }
          break;
        case GoType::kInvalid:
          break;
        default:
          Errorf("range can't iterate over " + FormatValue(val));
      }
    } catch (const BreakSignal&) {
      vars_.resize(outer);
      return;
    }
    if (!ran && r.has_else) Walk(dot, r.else_list);
    vars_.resize(outer);
  }

  void WalkTemplate(const Value& dot, const Node& t) {
    auto it = trees_.find(t.text);
    if (it == trees_.end()) Errorf("template \"" + t.text + "\" not defined");
    if (depth_ >= limits_.max_exec_depth) {
      Exhausted("exceeded maximum template depth (" + std::to_string(limits_.max_exec_depth) + ")");
    }
    Value newdot = t.pipe ? EvalPipeline(dot, t.pipe.get()) : Value::Invalid();
    std::vector<std::pair<std::string, Value>> saved = std::move(vars_);
    std::string saved_name = name_;
    vars_ = {{"$", newdot}};
    name_ = t.text;
    ++depth_;
    Walk(newdot, it->second->root);
    --depth_;
    name_ = saved_name;
    vars_ = std::move(saved);
  }

  Value EvalPipeline(const Value& dot, const Pipe* pipe) {
    if (pipe == nullptr) return Value::Invalid();
    Final value;
    for (const auto& cmd : pipe->cmds) {
      value = EvalCommand(dot, cmd, value).Unwrapped();
    }
    Value v = value.value_or(Value::Invalid());
    for (const auto& name : pipe->decl) {
      if (pipe->is_assign) {
        SetVar(name, v);
      } else {
        vars_.push_back({name, v});
      }
    }
    return v;
  }

  void SetVar(const std::string& name, const Value& v) {
    for (size_t i = vars_.size(); i-- > 0;) {
      if (vars_[i].first == name) {
        vars_[i].second = v;
        return;
      }
    }
    Errorf("undefined variable: " + name);
  }
  Value VarValue(const std::string& name) {
    for (size_t i = vars_.size(); i-- > 0;) {
      if (vars_[i].first == name) return vars_[i].second;
    }
    Errorf("undefined variable: " + name);
  }

  void NotAFunction(const std::vector<NodePtr>& args, const Final& final) {
    if (args.size() > 1 || final.has_value()) Errorf("can't give argument to non-function");
  }

  Value EvalCommand(const Value& dot, const Command& cmd, const Final& final) {
    const Node& first = *cmd.args[0];
    At(first);
    switch (first.kind) {
      case NodeKind::kField:
        return EvalFieldChain(dot, first.idents, cmd.args, final);
      case NodeKind::kChain:
        return EvalChain(dot, first, cmd.args, final);
      case NodeKind::kIdentifier:
        return EvalFunction(dot, first.text, cmd.args, final);
      case NodeKind::kPipe:
        NotAFunction(cmd.args, final);
        return EvalPipeline(dot, first.pipe.get());
      case NodeKind::kVariable:
        return EvalVariable(dot, first, cmd.args, final);
      default:
        break;
    }
    NotAFunction(cmd.args, final);
    switch (first.kind) {
      case NodeKind::kBool:
        return Value::Bool(first.bool_val);
      case NodeKind::kDot:
        return dot;
      case NodeKind::kNil:
        Errorf("nil is not a command");
      case NodeKind::kNumber:
        return IdealConstant(first.num);
      case NodeKind::kString:
        return Value::String(first.text);
      default:
        Errorf("can't evaluate command");
    }
  }

  Value IdealConstant(const Number& n) {
    bool hex_int = n.text.size() > 2 && n.text[0] == '0' && (n.text[1] == 'x' || n.text[1] == 'X') &&
                   n.text.find_first_of("pP") == std::string::npos;
    bool rune = !n.text.empty() && n.text[0] == '\'';
    if (n.is_float && !hex_int && !rune && n.text.find_first_of(".eEpP") != std::string::npos) {
      return Value::Float(n.f);
    }
    if (n.is_int) return Value::Int(n.i);
    if (n.is_uint) Errorf(n.text + " overflows int");
    return Value::Invalid();
  }

  Value EvalChain(const Value& dot, const Node& chain, const std::vector<NodePtr>& args, const Final& final) {
    if (chain.base->kind == NodeKind::kNil) Errorf("indirection through explicit nil");
    Value base = EvalArg(dot, std::nullopt, *chain.base);
    return EvalFieldChainFrom(base, chain.idents, args, final);
  }

  Value EvalVariable(const Value& dot, const Node& var, const std::vector<NodePtr>& args, const Final& final) {
    Value v = VarValue(var.idents[0]);
    if (var.idents.size() == 1) {
      NotAFunction(args, final);
      return v;
    }
    std::vector<std::string> rest(var.idents.begin() + 1, var.idents.end());
    return EvalFieldChainFrom(v, rest, args, final);
  }

  Value EvalFieldChain(const Value& dot, const std::vector<std::string>& idents, const std::vector<NodePtr>& args,
                       const Final& final) {
    return EvalFieldChainFrom(dot, idents, args, final);
  }

  Value EvalFieldChainFrom(Value receiver, const std::vector<std::string>& idents,
                           const std::vector<NodePtr>& args, const Final& final) {
    for (size_t i = 0; i + 1 < idents.size(); ++i) receiver = EvalField(idents[i], false, receiver);
    return EvalField(idents.back(), args.size() > 1 || final.has_value(), receiver);
  }

  Value EvalField(const std::string& field, bool has_args, const Value& receiver0) {
    if (!receiver0.valid()) return Value::Invalid();
    Value receiver = receiver0;
    if (receiver.type == GoType::kRootPtr) {
      receiver = Value::FromJson(receiver.j);
      if (receiver.type == GoType::kNilIface) Errorf("nil pointer evaluating *interface {}." + field);
    }
    switch (receiver.type) {
      case GoType::kNilIface:
        Errorf("nil pointer evaluating interface {}." + field);
      case GoType::kMap:
      case GoType::kStringMap: {
        if (has_args) Errorf(field + " is not a method but has arguments");
        auto it = receiver.j.find(field);
        if (it == receiver.j.end()) return Value::Invalid();
        return receiver.type == GoType::kStringMap ? Value::String(it->get<std::string>()) : Value::FromJson(*it);
      }
      default:
        Errorf("can't evaluate field " + field + " in type " + GoTypeName(receiver));
    }
  }

  Value EvalFunction(const Value& dot, const std::string& name, const std::vector<NodePtr>& args,
                     const Final& final) {
    const auto& table = FuncTable();
    auto it = table.find(name);
    if (it == table.end()) Errorf("\"" + name + "\" is not a defined function");
    return EvalCall(dot, name, it->second, args, final);
  }

  // validateType of Go: `p` nullopt is Go's nil type (no conversion).
  Value ValidateType(const Value& v0, std::optional<Param> p) {
    Value v = v0;
    if (!v.valid()) {
      if (!p.has_value()) return v;
      if (CanBeNil(*p)) {
        if (*p == Param::kStringSlice) return Value{GoType::kStringSlice, nlohmann::json::array()};
        if (*p == Param::kMap) return Value{GoType::kMap, nlohmann::json::object()};
        return Value::Invalid();
      }
      Errorf("invalid value; expected " + ParamName(*p));
    }
    if (!p.has_value() || *p == Param::kValue || *p == Param::kAny) {
      return v.type == GoType::kNilIface ? Value::Invalid() : v;
    }
    GoType want = GoType::kInvalid;
    switch (*p) {
      case Param::kString: want = GoType::kString; break;
      case Param::kInt: want = GoType::kInt; break;
      case Param::kFloat: want = GoType::kFloat64; break;
      case Param::kBool: want = GoType::kBool; break;
      case Param::kStringSlice: want = GoType::kStringSlice; break;
      case Param::kMap: want = GoType::kMap; break;
      default: break;
    }
    if (v.type != want) {
      Errorf("wrong type for value; expected " + ParamName(*p) + "; got " + GoTypeName(v));
    }
    return v;
  }

  Value EvalArg(const Value& dot, std::optional<Param> p, const Node& n) {
    At(n);
    switch (n.kind) {
      case NodeKind::kDot:
        return ValidateType(dot, p);
      case NodeKind::kNil:
        if (p.has_value() && CanBeNil(*p)) return ValidateType(Value::Invalid(), p);
        Errorf("cannot assign nil to " + (p.has_value() ? ParamName(*p) : std::string("<nil>")));
      case NodeKind::kField:
        return ValidateType(EvalFieldChain(dot, n.idents, {}, std::nullopt), p);
      case NodeKind::kVariable: {
        static const std::vector<NodePtr> kNone;
        return ValidateType(EvalVariable(dot, n, kNone, std::nullopt), p);
      }
      case NodeKind::kPipe:
        return ValidateType(EvalPipeline(dot, n.pipe.get()), p);
      case NodeKind::kIdentifier:
        return ValidateType(EvalFunction(dot, n.text, {}, std::nullopt), p);
      case NodeKind::kChain:
        return ValidateType(EvalChain(dot, n, {}, std::nullopt), p);
      default:
        break;
    }
    if (!p.has_value()) Errorf("can't handle argument");
    switch (*p) {
      case Param::kBool:
        if (n.kind == NodeKind::kBool) return Value::Bool(n.bool_val);
        Errorf("expected bool; found " + NodeText(n));
      case Param::kFloat:
        if (n.kind == NodeKind::kNumber && n.num.is_float) return Value::Float(n.num.f);
        Errorf("expected float; found " + NodeText(n));
      case Param::kInt:
        if (n.kind == NodeKind::kNumber && n.num.is_int) return Value::Int(n.num.i);
        Errorf("expected integer; found " + NodeText(n));
      case Param::kString:
        if (n.kind == NodeKind::kString) return Value::String(n.text);
        Errorf("expected string; found " + NodeText(n));
      case Param::kAny:
      case Param::kValue:
        switch (n.kind) {
          case NodeKind::kBool:
            return Value::Bool(n.bool_val);
          case NodeKind::kNumber:
            return IdealConstant(n.num);
          case NodeKind::kString:
            return Value::String(n.text);
          default:
            Errorf("can't handle assignment to empty interface argument");
        }
      default:
        Errorf("can't handle " + NodeText(n) + " for arg of type " + ParamName(*p));
    }
  }

  static std::string NodeText(const Node& n) {
    switch (n.kind) {
      case NodeKind::kBool: return n.bool_val ? "true" : "false";
      case NodeKind::kNumber: return n.num.text;
      case NodeKind::kString: return GoQuote(n.text);
      default: return "operand";
    }
  }

  Value EvalCall(const Value& dot, const std::string& name, const Func& fn, const std::vector<NodePtr>& cmd_args,
                 const Final& final) {
    // cmd_args[0] is the function name (empty when called as an argument).
    size_t nargs = cmd_args.empty() ? 0 : cmd_args.size() - 1;
    auto arg = [&](size_t i) -> const Node& { return *cmd_args[i + 1]; };
    size_t num_in = nargs + (final.has_value() ? 1 : 0);
    size_t num_fixed = nargs;
    if (fn.variadic) {
      num_fixed = fn.params.size() - 1;
      if (num_in < num_fixed) {
        Errorf(absl::StrCat("wrong number of args for ", name, ": want at least ", num_fixed, " got ", nargs));
      }
    } else if (num_in != fn.params.size()) {
      Errorf(absl::StrCat("wrong number of args for ", name, ": want ", fn.params.size(), " got ", num_in));
    }
    if (name == "and" || name == "or") {
      Value v;
      for (size_t i = 0; i < nargs; ++i) {
        v = EvalArg(dot, Param::kValue, arg(i));
        if (IsTrue(v) == (name == "or")) return v;
      }
      if (final.has_value()) v = ValidateType(*final, Param::kValue);
      return v;
    }
    std::vector<Value> argv;
    size_t i = 0;
    for (; i < num_fixed && i < nargs; ++i) argv.push_back(EvalArg(dot, fn.params[i], arg(i)));
    if (fn.variadic) {
      for (; i < nargs; ++i) argv.push_back(EvalArg(dot, fn.params.back(), arg(i)));
    }
    if (final.has_value()) {
      Param t = fn.params.back();
      if (fn.variadic && num_in - 1 < num_fixed) t = fn.params[num_in - 1];
      argv.push_back(ValidateType(*final, t));
    }
    FuncLimits fl;
    fl.max_bytes = limits_.max_output_bytes;
    absl::StatusOr<Value> r = fn.impl(argv, fl);
    if (!r.ok()) {
      if (r.status().code() == absl::StatusCode::kResourceExhausted) {
        Exhausted(std::string(r.status().message()));
      }
      Errorf(absl::StrCat("error calling ", name, ": ", r.status().message()));
    }
    return *std::move(r);
  }

  const TreeSet& trees_;
  const Limits& limits_;
  std::string name_;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<std::pair<std::string, Value>> vars_;
  std::string out_;
  int line_ = 0;
  int depth_ = 0;
  int nesting_ = 0;
  uint64_t steps_ = 0;
};

}  // namespace

absl::StatusOr<TemplateSet> TemplateSet::Parse(const std::string& name, const std::string& text,
                                               const std::string& left, const std::string& right,
                                               const Limits& limits) {
  if (text.size() > limits.max_template_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("template: ", name, ": body is ", text.size(),
                                                   " bytes, over the limit of ", limits.max_template_bytes));
  }
  TemplateSet set;
  set.trees_ = std::make_shared<TreeSet>();
  set.limits_ = limits;
  const auto& table = FuncTable();
  auto has = [&table](const std::string& f) { return table.count(f) > 0; };
  absl::Status st = gotemplate::Parse(name, text, left, right, has, set.trees_.get(), limits.max_parse_depth);
  if (!st.ok()) return st;
  return set;
}

absl::StatusOr<std::string> TemplateSet::Execute(const std::string& name, const nlohmann::json& data) const {
  auto it = trees_->find(name);
  if (it == trees_->end()) {
    return absl::InvalidArgumentError("template: no template \"" + name + "\" associated with template");
  }
  State state(*trees_, limits_, name);
  try {
    return state.Run(*it->second, Value{GoType::kRootPtr, data});
  } catch (const ExecError& e) {
    return e.status;
  } catch (const nlohmann::json::exception& e) {
    return absl::InternalError(absl::StrCat("template: ", name, ": ", e.what()));
  }
}

absl::StatusOr<std::string> Render(const std::string& name, const std::string& text, const nlohmann::json& data,
                                   const std::string& left, const std::string& right, const Limits& limits) {
  auto set = TemplateSet::Parse(name, text, left, right, limits);
  if (!set.ok()) return set.status();
  return set->Execute(name, data);
}

}  // namespace sluice::gotemplate
