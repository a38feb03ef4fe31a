// Internal to //common/gotemplate: the sprig v3.2.3 functions Siren's
// templates and docs use, and Siren's own additions (Siren
// core/template/mapper.go), with Go's parameter types so that argument errors
// match. The table is filled from two files: sprig_strings.cc (strings,
// regular expressions, Siren's string extras) and sprig_lists.cc (defaults,
// lists and dicts, numbers); the helpers both use are in sprig.cc.
#ifndef SLUICE_COMMON_GOTEMPLATE_SPRIG_H_
#define SLUICE_COMMON_GOTEMPLATE_SPRIG_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/gotemplate/funcs.h"
#include "common/gotemplate/value.h"

namespace sluice::gotemplate {

// Adds every sprig and Siren function to `table` (FuncTable() calls it after
// the builtins, so sprig's `slice` replaces the builtin as Go's Funcs do).
void AddSprigFuncs(std::map<std::string, Func>* table);

namespace sprig {

using Args = std::vector<Value>;
using R = absl::StatusOr<Value>;

// InvalidArgument carrying Go's message `m` as is.
absl::Status Err(const std::string& m);

// The string / int64 of a value the caller's Param already checked as
// kString / kInt.
const std::string& Str(const Value& v);
int64_t IntOf(const Value& v);

// ResourceExhausted when a result of `n` bytes is over `l.max_bytes`.
absl::Status CheckSize(size_t n, const FuncLimits& l);

// True for no value or a nil interface.
bool IsNilV(const Value& v);

// sprig's strslice: []string as is, []interface{} as strval of each non-nil,
// nil as empty, anything else as a one-element list of its strval.
std::vector<std::string> StrSlice(const Value& v);

// A Go []string of `v`.
Value StringSlice(const std::vector<std::string>& v);

// A value stored back into JSON (a list or dict element); nil as null.
nlohmann::json ToJson(const Value& v);

// Sets `(*t)[name]` to a function of `params` (the last repeated when
// `variadic`).
void Add(std::map<std::string, Func>* t, const std::string& name, std::vector<Param> params, bool variadic,
         FuncImpl f);

// Siren's string extras, sprig's string and regex functions (sprig_strings.cc).
void AddStringFuncs(std::map<std::string, Func>* t);

// sprig's defaults and flow, list and dict, and number functions
// (sprig_lists.cc).
void AddListFuncs(std::map<std::string, Func>* t);

}  // namespace sprig
}  // namespace sluice::gotemplate

#endif  // SLUICE_COMMON_GOTEMPLATE_SPRIG_H_
