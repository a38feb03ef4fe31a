// Lexer and parser of Go's text/template language (Go 1.19's
// text/template/parse: lex.go, parse.go, node.go), producing a tree per
// template name.
#ifndef SLUICE_COMMON_GOTEMPLATE_PARSE_H_
#define SLUICE_COMMON_GOTEMPLATE_PARSE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace sluice::gotemplate {

enum class NodeKind {
  // list items
  kText, kAction, kIf, kRange, kWith, kTemplate, kBreak, kContinue, kComment,
  // operands
  kField, kChain, kVariable, kDot, kNil, kBool, kNumber, kString, kIdentifier, kPipe,
  // parser-internal markers
  kEnd, kElse,
};

struct Node;
using NodePtr = std::unique_ptr<Node>;

// A numeric constant with the interpretations Go's NumberNode records.
struct Number {
  bool is_int = false, is_uint = false, is_float = false, is_complex = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string text;
};

// One command of a pipeline: operands, the first may be a function.
struct Command {
  std::vector<NodePtr> args;
};

// A pipeline with optional declarations ($x := / $x = / $i, $v :=).
struct Pipe {
  int line = 0;
  bool is_assign = false;
  std::vector<std::string> decl;
  std::vector<Command> cmds;
};

// Every node kind in one struct; fields unused by a kind stay empty.
struct Node {
  NodeKind kind;
  int line = 0;
  std::string text;                 // text, string value, identifier, template name
  std::vector<std::string> idents;  // field/variable path; chain fields
  NodePtr base;                     // chain's operand
  std::unique_ptr<Pipe> pipe;       // action/if/range/with/template/paren pipeline
  std::vector<NodePtr> list;        // if/range/with body
  std::vector<NodePtr> else_list;   // else branch
  bool has_else = false;
  bool bool_val = false;
  Number num;
};

// A parsed template.
struct Tree {
  std::string name;
  std::vector<NodePtr> root;
};

// Templates by name, as Go's treeSet.
using TreeSet = std::map<std::string, std::shared_ptr<Tree>>;

// Parses `text` as template `name` with delimiters `left`/`right` ("" for
// {{ }}), adding it and every {{define}}/{{block}} to `trees` with Go's
// rules (an empty definition never replaces a non-empty one; two non-empty
// ones are an error). `has_function` says which identifiers are functions
// (Go checks them at parse time). Errors are InvalidArgument
// "template: <name>:<line>: <message>", as Go's.
absl::Status Parse(const std::string& name, const std::string& text, const std::string& left,
                   const std::string& right, const std::function<bool(const std::string&)>& has_function,
                   TreeSet* trees, int max_depth);

}  // namespace sluice::gotemplate

#endif  // SLUICE_COMMON_GOTEMPLATE_PARSE_H_
