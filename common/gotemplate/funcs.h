// The function map of the Go template engine: text/template's builtins
// (funcs.go) and the sprig v3 functions and Siren extras that Siren's
// templates use (Siren core/template/mapper.go: sprig.TxtFuncMap() plus
// toUpper, toLower, title, join, match, reReplaceAll, stringSlice, sub).
#ifndef SLUICE_COMMON_GOTEMPLATE_FUNCS_H_
#define SLUICE_COMMON_GOTEMPLATE_FUNCS_H_

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/gotemplate/value.h"

namespace sluice::gotemplate {

// Go parameter types, as evalArg/validateType check them.
enum class Param {
  kValue,        // reflect.Value (builtins): anything, nil included
  kAny,          // interface{}
  kString,
  kInt,          // int
  kFloat,        // float64
  kBool,
  kStringSlice,  // []string
  kMap,          // map[string]interface{}
};

// Go's name of a parameter type, for messages.
std::string ParamName(Param p);

// Limits a function call must respect (bytes a result may hold).
struct FuncLimits {
  size_t max_bytes = 1 << 20;
};

using FuncImpl = std::function<absl::StatusOr<Value>(std::vector<Value>& args, const FuncLimits& limits)>;

// One function: its parameters (the last one repeated when `variadic`).
struct Func {
  std::vector<Param> params;
  bool variadic = false;
  FuncImpl impl;
};

// Every function by name ("and"/"or" are evaluated by the executor, lazily).
const std::map<std::string, Func>& FuncTable();

// fmt.Sprint / Sprintln / Sprintf of values (Go's spacing and verb rules;
// verbs v s d q t f e g x X o c b and %%, flags + - # 0 space, width,
// precision; bad verbs print as %!v(type=value)). ResourceExhausted when the
// result would pass `max_bytes`: each string operand's size (and each
// width) is checked before it is formatted, so nothing larger is built
// (security review R3-L6).
absl::StatusOr<std::string> Sprint(const std::vector<Value>& args,
                                   size_t max_bytes = std::numeric_limits<size_t>::max());
absl::StatusOr<std::string> Sprintln(const std::vector<Value>& args,
                                     size_t max_bytes = std::numeric_limits<size_t>::max());
absl::StatusOr<std::string> Sprintf(const std::string& format, const std::vector<Value>& args,
                                    size_t max_bytes = std::numeric_limits<size_t>::max());

// strconv.Quote of a string (Go escapes; UTF-8 kept).
std::string GoQuote(const std::string& s);

// sprig's strval: a string as is, anything else fmt %v.
std::string StrVal(const Value& v);

}  // namespace sluice::gotemplate

#endif  // SLUICE_COMMON_GOTEMPLATE_FUNCS_H_
