// A Go text/template engine (Go 1.19 semantics) over JSON data, for Siren's
// templates: `[[ ]]` delimiters for user templates, `{{ }}` for receivers'
// default message templates (Siren core/template/service.go RenderBody).
//
// The data passed to Execute is seen as Siren passes it: a pointer to an
// interface{} holding the JSON-decoded value (maps map[string]interface{},
// arrays []interface{}, integers int, other numbers float64). Missing map
// keys print "<no value>" (missingkey=default). Functions: the builtins
// (without `call`), and the sprig/Siren functions listed in funcs.h.
#ifndef SLUICE_COMMON_GOTEMPLATE_GOTEMPLATE_H_
#define SLUICE_COMMON_GOTEMPLATE_GOTEMPLATE_H_

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/gotemplate/parse.h"
#include "nlohmann/json.hpp"

namespace sluice::gotemplate {

// Budgets that keep parsing and execution bounded.
struct Limits {
  size_t max_template_bytes = 64 * 1024;  // template text
  int max_parse_depth = 100;              // nesting of actions/parentheses
  int max_exec_depth = 200;               // {{template}} recursion
  size_t max_output_bytes = 4 << 20;      // rendered output
  std::chrono::milliseconds max_time{2000};
};

// Parsed templates sharing one namespace (Go's *template.Template set).
class TemplateSet {
 public:
  // Parses `text` as template `name` with delimiters `left`/`right` ("" for
  // {{ }}). InvalidArgument with Go's message ("template: name:3: unexpected
  // EOF"), or when `text` is over limits.max_template_bytes or nests deeper
  // than limits.max_parse_depth.
  static absl::StatusOr<TemplateSet> Parse(const std::string& name, const std::string& text,
                                           const std::string& left = "", const std::string& right = "",
                                           const Limits& limits = Limits());

  // Executes template `name` with `data`. InvalidArgument with Go's message
  // ("template: name:1:5: executing \"name\" at <.a.b>: ...") on an
  // execution error; ResourceExhausted when a budget is exceeded.
  absl::StatusOr<std::string> Execute(const std::string& name, const nlohmann::json& data) const;

  // True if a template `name` is defined.
  bool Has(const std::string& name) const { return trees_->count(name) > 0; }

 private:
  std::shared_ptr<TreeSet> trees_;
  Limits limits_;
};

// Parse then Execute of the template itself (as Siren's RenderBody).
absl::StatusOr<std::string> Render(const std::string& name, const std::string& text, const nlohmann::json& data,
                                   const std::string& left = "", const std::string& right = "",
                                   const Limits& limits = Limits());

}  // namespace sluice::gotemplate

#endif  // SLUICE_COMMON_GOTEMPLATE_GOTEMPLATE_H_
