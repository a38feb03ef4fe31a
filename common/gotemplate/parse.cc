// The parser follows Go 1.19's text/template/parse/parse.go function by
// function; errors unwind with a ParseError exception that never leaves
// this file (Parse returns absl::Status), as Go's parser panics and
// recovers.
#include "common/gotemplate/parse.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/gotemplate/lex.h"
#include "common/gotemplate/unquote.h"

namespace sluice::gotemplate {
namespace {

struct ParseError {
  std::string msg;
};

std::string Describe(const Item& it) {
  switch (it.type) {
    case ItemType::kEOF:
      return "EOF";
    case ItemType::kError:
      return it.val;
    default:
      break;
  }
  if (it.type >= ItemType::kBlock) return "<" + it.val + ">";
  if (it.val.size() > 10) return "\"" + it.val.substr(0, 10) + "\"...";
  return "\"" + it.val + "\"";
}

bool IsEmptyList(const std::vector<NodePtr>& list) {
  for (const auto& n : list) {
    if (n->kind == NodeKind::kComment) continue;
    if (n->kind == NodeKind::kText) {
      for (char c : n->text) {
        if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')) return false;
      }
      continue;
    }
    return false;
  }
  return true;
}

class Parser {
 public:
  Parser(std::string name, std::vector<Item> items, const std::function<bool(const std::string&)>& fn,
         TreeSet* trees, int max_depth)
      : parse_name_(std::move(name)), items_(std::move(items)), has_function_(fn), trees_(trees),
        max_depth_(max_depth) {}

  void ParseMain() {
    auto tree = std::make_shared<Tree>();
    tree->name = parse_name_;
    vars_ = {"$"};
    while (Peek().type != ItemType::kEOF) {
      if (Peek().type == ItemType::kLeftDelim) {
        size_t save = idx_;
        Next();
        if (NextNonSpace().type == ItemType::kDefine) {
          ParseDefinition();
          continue;
        }
        idx_ = save;
      }
      NodePtr n = TextOrAction();
      if (n->kind == NodeKind::kEnd || n->kind == NodeKind::kElse) {
        Errorf(absl::StrCat("unexpected ", n->kind == NodeKind::kEnd ? "{{end}}" : "{{else}}"));
      }
      tree->root.push_back(std::move(n));
    }
    Add(tree);
  }

 private:
  [[noreturn]] void Errorf(const std::string& msg) {
    throw ParseError{absl::StrCat("template: ", parse_name_, ":", line_, ": ", msg)};
  }
  const Item& Next() {
    const Item& it = items_[idx_ < items_.size() ? idx_ : items_.size() - 1];
    if (idx_ < items_.size()) ++idx_;
    line_ = it.line;
    return it;
  }
  void Backup() { --idx_; }
  const Item& Peek() { return items_[idx_ < items_.size() ? idx_ : items_.size() - 1]; }
  const Item& NextNonSpace() {
    for (;;) {
      const Item& it = Next();
      if (it.type != ItemType::kSpace) return it;
    }
  }
  const Item& PeekNonSpace() {
    const Item& it = NextNonSpace();
    Backup();
    return it;
  }
  const Item& Expect(ItemType t, const char* context) {
    const Item& it = NextNonSpace();
    if (it.type != t) Unexpected(it, context);
    return it;
  }
  [[noreturn]] void Unexpected(const Item& it, const std::string& context) {
    if (it.type == ItemType::kError) Errorf(it.val);
    Errorf(absl::StrCat("unexpected ", Describe(it), " in ", context));
  }
  NodePtr NewNode(NodeKind k) {
    auto n = std::make_unique<Node>();
    n->kind = k;
    n->line = line_;
    return n;
  }
  struct DepthGuard {
    Parser* p;
    explicit DepthGuard(Parser* parser) : p(parser) {
      if (++p->depth_ > p->max_depth_) p->Errorf("template nesting too deep");
    }
    ~DepthGuard() { --p->depth_; }
  };

  void Add(std::shared_ptr<Tree> tree) {
    auto it = trees_->find(tree->name);
    if (it == trees_->end() || IsEmptyList(it->second->root)) {
      (*trees_)[tree->name] = std::move(tree);
      return;
    }
    if (!IsEmptyList(tree->root)) {
      Errorf(absl::StrCat("template: multiple definition of template \"", tree->name, "\""));
    }
  }

  // Runs `body` as a new tree's parse (fresh variables and range depth).
  template <typename F>
  void InNewTree(F body) {
    std::vector<std::string> vars = std::move(vars_);
    int range_depth = range_depth_;
    vars_ = {"$"};
    range_depth_ = 0;
    body();
    vars_ = std::move(vars);
    range_depth_ = range_depth;
  }

  void ParseDefinition() {
    const Item& name = NextNonSpace();
    if (name.type != ItemType::kString && name.type != ItemType::kRawString) Unexpected(name, "define clause");
    auto tree = std::make_shared<Tree>();
    auto s = Unquote(name.val);
    if (!s.ok()) Errorf(std::string(s.status().message()));
    tree->name = *s;
    Expect(ItemType::kRightDelim, "define clause");
    InNewTree([&] {
      NodePtr end;
      tree->root = ItemList(&end);
      if (end->kind != NodeKind::kEnd) Errorf("unexpected {{else}} in define clause");
    });
    Add(tree);
  }

  std::vector<NodePtr> ItemList(NodePtr* end) {
    std::vector<NodePtr> list;
    while (PeekNonSpace().type != ItemType::kEOF) {
      NodePtr n = TextOrAction();
      if (n->kind == NodeKind::kEnd || n->kind == NodeKind::kElse) {
        *end = std::move(n);
        return list;
      }
      list.push_back(std::move(n));
    }
    Errorf("unexpected EOF");
  }

  NodePtr TextOrAction() {
    DepthGuard guard(this);
    const Item& it = NextNonSpace();
    switch (it.type) {
      case ItemType::kText: {
        NodePtr n = NewNode(NodeKind::kText);
        n->text = it.val;
        return n;
      }
      case ItemType::kLeftDelim:
        return Action();
      default:
        Unexpected(it, "input");
    }
  }

  NodePtr Action() {
    const Item& it = NextNonSpace();
    switch (it.type) {
      case ItemType::kBlock:
        return BlockControl();
      case ItemType::kBreak:
      case ItemType::kContinue: {
        bool brk = it.type == ItemType::kBreak;
        const Item& t = NextNonSpace();
        if (t.type != ItemType::kRightDelim) Unexpected(t, brk ? "{{break}}" : "{{continue}}");
        if (range_depth_ == 0) Errorf(brk ? "{{break}} outside {{range}}" : "{{continue}} outside {{range}}");
        return NewNode(brk ? NodeKind::kBreak : NodeKind::kContinue);
      }
      case ItemType::kElse: {
        if (PeekNonSpace().type == ItemType::kIf) return NewNode(NodeKind::kElse);
        Expect(ItemType::kRightDelim, "else");
        return NewNode(NodeKind::kElse);
      }
      case ItemType::kEnd:
        Expect(ItemType::kRightDelim, "end");
        return NewNode(NodeKind::kEnd);
      case ItemType::kIf:
        return Control(NodeKind::kIf, true, "if");
      case ItemType::kRange:
        return Control(NodeKind::kRange, false, "range");
      case ItemType::kWith:
        return Control(NodeKind::kWith, false, "with");
      case ItemType::kTemplate:
        return TemplateControl();
      default:
        break;
    }
    Backup();
    NodePtr n = NewNode(NodeKind::kAction);
    n->pipe = ParsePipeline("command", ItemType::kRightDelim);
    return n;
  }

  NodePtr Control(NodeKind kind, bool allow_else_if, const char* context) {
    size_t nvars = vars_.size();
    NodePtr n = NewNode(kind);
    n->pipe = ParsePipeline(context, ItemType::kRightDelim);
    if (kind == NodeKind::kRange) ++range_depth_;
    NodePtr next;
    n->list = ItemList(&next);
    if (kind == NodeKind::kRange) --range_depth_;
    if (next->kind == NodeKind::kElse) {
      n->has_else = true;
      if (allow_else_if && Peek().type == ItemType::kIf) {
        Next();
        n->else_list.push_back(Control(NodeKind::kIf, true, "if"));
      } else {
        n->else_list = ItemList(&next);
        if (next->kind != NodeKind::kEnd) Errorf("expected end; found {{else}}");
      }
    }
    vars_.resize(nvars);
    return n;
  }

  std::string TemplateName(const Item& it, const char* context) {
    if (it.type != ItemType::kString && it.type != ItemType::kRawString) Unexpected(it, context);
    auto s = Unquote(it.val);
    if (!s.ok()) Errorf(std::string(s.status().message()));
    return *s;
  }

  NodePtr BlockControl() {
    const char* context = "block clause";
    const Item& it = NextNonSpace();
    NodePtr n = NewNode(NodeKind::kTemplate);
    n->text = TemplateName(it, context);
    n->pipe = ParsePipeline(context, ItemType::kRightDelim);
    auto tree = std::make_shared<Tree>();
    tree->name = n->text;
    InNewTree([&] {
      NodePtr end;
      tree->root = ItemList(&end);
      if (end->kind != NodeKind::kEnd) Errorf("unexpected {{else}} in block clause");
    });
    Add(tree);
    return n;
  }

  NodePtr TemplateControl() {
    const char* context = "template clause";
    const Item& it = NextNonSpace();
    NodePtr n = NewNode(NodeKind::kTemplate);
    n->text = TemplateName(it, context);
    if (NextNonSpace().type != ItemType::kRightDelim) {
      Backup();
      n->pipe = ParsePipeline(context, ItemType::kRightDelim);
    }
    return n;
  }

  std::unique_ptr<Pipe> ParsePipeline(const std::string& context, ItemType end) {
    auto pipe = std::make_unique<Pipe>();
    pipe->line = PeekNonSpace().line;
    for (;;) {  // decls
      if (PeekNonSpace().type != ItemType::kVariable) break;
      size_t at_var = idx_;
      Item v = Next();
      ItemType after = Peek().type;
      const Item& next = PeekNonSpace();
      if (next.type == ItemType::kAssign || next.type == ItemType::kDeclare) {
        pipe->is_assign = next.type == ItemType::kAssign;
        NextNonSpace();
        pipe->decl.push_back(v.val);
        vars_.push_back(v.val);
      } else if (next.type == ItemType::kChar && next.val == ",") {
        NextNonSpace();
        pipe->decl.push_back(v.val);
        vars_.push_back(v.val);
        if (context == "range" && pipe->decl.size() < 2) {
          ItemType t = PeekNonSpace().type;
          if (t == ItemType::kVariable || t == ItemType::kRightDelim || t == ItemType::kRightParen) continue;
          Errorf("range can only initialize variables");
        }
        Errorf("too many declarations in " + context);
      } else {
        (void)after;
        idx_ = at_var;
      }
      break;
    }
    for (;;) {
      const Item& it = NextNonSpace();
      if (it.type == end) {
        if (pipe->cmds.empty()) Errorf("missing value for " + context);
        for (size_t i = 1; i < pipe->cmds.size(); ++i) {
          NodeKind k = pipe->cmds[i].args[0]->kind;
          if (k == NodeKind::kBool || k == NodeKind::kDot || k == NodeKind::kNil || k == NodeKind::kNumber ||
              k == NodeKind::kString) {
            Errorf(absl::StrCat("non executable command in pipeline stage ", i + 1));
          }
        }
        return pipe;
      }
      switch (it.type) {
        case ItemType::kBool: case ItemType::kCharConstant: case ItemType::kComplex: case ItemType::kDot:
        case ItemType::kField: case ItemType::kIdentifier: case ItemType::kNumber: case ItemType::kNil:
        case ItemType::kRawString: case ItemType::kString: case ItemType::kVariable: case ItemType::kLeftParen:
          Backup();
          pipe->cmds.push_back(ParseCommand());
          break;
        default:
          Unexpected(it, context);
      }
    }
  }

  Command ParseCommand() {
    Command cmd;
    for (;;) {
      PeekNonSpace();
      NodePtr op = Operand();
      if (op) cmd.args.push_back(std::move(op));
      const Item& it = Next();
      if (it.type == ItemType::kSpace) continue;
      if (it.type == ItemType::kRightDelim || it.type == ItemType::kRightParen) {
        Backup();
      } else if (it.type != ItemType::kPipe) {
        Unexpected(it, "operand");
      }
      break;
    }
    if (cmd.args.empty()) Errorf("empty command");
    return cmd;
  }

  NodePtr Operand() {
    NodePtr node = Term();
    if (!node) return nullptr;
    if (Peek().type == ItemType::kField) {
      std::vector<std::string> fields;
      while (Peek().type == ItemType::kField) fields.push_back(Next().val.substr(1));
      switch (node->kind) {
        case NodeKind::kField:
        case NodeKind::kVariable:
          for (auto& f : fields) node->idents.push_back(std::move(f));
          return node;
        case NodeKind::kBool: case NodeKind::kString: case NodeKind::kNumber: case NodeKind::kNil:
        case NodeKind::kDot:
          Errorf("unexpected . after term");
        default: {
          NodePtr chain = NewNode(NodeKind::kChain);
          chain->base = std::move(node);
          chain->idents = std::move(fields);
          return chain;
        }
      }
    }
    return node;
  }

  NodePtr Term() {
    DepthGuard guard(this);
    const Item& it = NextNonSpace();
    switch (it.type) {
      case ItemType::kIdentifier: {
        if (it.val == "call") {
          // Go's call needs a function value; JSON data holds none.
          Errorf("function \"call\" is not supported (template data holds no functions)");
        }
        if (!has_function_(it.val)) Errorf("function \"" + it.val + "\" not defined");
        NodePtr n = NewNode(NodeKind::kIdentifier);
        n->text = it.val;
        return n;
      }
      case ItemType::kDot:
        return NewNode(NodeKind::kDot);
      case ItemType::kNil:
        return NewNode(NodeKind::kNil);
      case ItemType::kVariable: {
        NodePtr n = NewNode(NodeKind::kVariable);
        n->idents = absl::StrSplit(it.val, '.');
        bool found = false;
        for (const auto& v : vars_) found = found || v == n->idents[0];
        if (!found) Errorf("undefined variable \"" + n->idents[0] + "\"");
        return n;
      }
      case ItemType::kField: {
        NodePtr n = NewNode(NodeKind::kField);
        n->idents.push_back(it.val.substr(1));
        return n;
      }
      case ItemType::kBool: {
        NodePtr n = NewNode(NodeKind::kBool);
        n->bool_val = it.val == "true";
        return n;
      }
      case ItemType::kCharConstant:
      case ItemType::kComplex:
      case ItemType::kNumber: {
        NodePtr n = NewNode(NodeKind::kNumber);
        auto num = ParseNumber(it.val, it.type == ItemType::kCharConstant, it.type == ItemType::kComplex);
        if (!num.ok()) Errorf(std::string(num.status().message()));
        n->num = *num;
        return n;
      }
      case ItemType::kLeftParen: {
        NodePtr n = NewNode(NodeKind::kPipe);
        n->pipe = ParsePipeline("parenthesized pipeline", ItemType::kRightParen);
        return n;
      }
      case ItemType::kString:
      case ItemType::kRawString: {
        NodePtr n = NewNode(NodeKind::kString);
        auto s = Unquote(it.val);
        if (!s.ok()) Errorf(std::string(s.status().message()));
        n->text = *s;
        return n;
      }
      default:
        Backup();
        return nullptr;
    }
  }

  std::string parse_name_;
  std::vector<Item> items_;
  size_t idx_ = 0;
  int line_ = 1;
  const std::function<bool(const std::string&)>& has_function_;
  TreeSet* trees_;
  std::vector<std::string> vars_;
  int range_depth_ = 0;
  int depth_ = 0;
  int max_depth_;
};

}  // namespace

absl::Status Parse(const std::string& name, const std::string& text, const std::string& left,
                   const std::string& right, const std::function<bool(const std::string&)>& has_function,
                   TreeSet* trees, int max_depth) {
  Parser p(name, Lex(text, left, right), has_function, trees, max_depth);
  try {
    p.ParseMain();
  } catch (const ParseError& e) {
    return absl::InvalidArgumentError(e.msg);
  }
  return absl::OkStatus();
}

}  // namespace sluice::gotemplate
