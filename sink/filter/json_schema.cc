#include "sink/filter/json_schema.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sink/schema/json_decoder.h"

namespace sluice::sink {
namespace {

using json = nlohmann::json;

const json* Member(const json& schema, const char* keyword) {
  auto it = schema.find(keyword);
  return it == schema.end() ? nullptr : &*it;
}

bool IsInteger(const json& j) {
  if (j.is_number_integer()) return true;
  if (!j.is_number_float()) return false;
  double d = j.get<double>();
  return std::isfinite(d) && d == std::floor(d);
}

bool IsNonNegativeInteger(const json& j) { return IsInteger(j) && j.get<double>() >= 0; }

// Exact for two integers (signed or unsigned), doubles otherwise.
int CompareNumbers(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    auto wide = [](const json& j) -> __int128 {
      return j.is_number_unsigned() ? static_cast<__int128>(j.get<uint64_t>())
                                    : static_cast<__int128>(j.get<int64_t>());
    };
    __int128 x = wide(a), y = wide(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  double x = a.get<double>(), y = b.get<double>();
  return x < y ? -1 : (x > y ? 1 : 0);
}

bool IsMultipleOf(const json& value, const json& divisor) {
  if (value.is_number_integer() && divisor.is_number_integer()) {
    auto wide = [](const json& j) -> __int128 {
      return j.is_number_unsigned() ? static_cast<__int128>(j.get<uint64_t>())
                                    : static_cast<__int128>(j.get<int64_t>());
    };
    return wide(value) % wide(divisor) == 0;
  }
  double q = value.get<double>() / divisor.get<double>();
  if (!std::isfinite(q)) return false;
  return std::fabs(q - std::nearbyint(q)) <= 1e-9 * std::max(1.0, std::fabs(q));
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool TypeMatches(const json& inst, const std::string& type) {
  if (type == "null") return inst.is_null();
  if (type == "boolean") return inst.is_boolean();
  if (type == "object") return inst.is_object();
  if (type == "array") return inst.is_array();
  if (type == "string") return inst.is_string();
  if (type == "number") return inst.is_number();
  if (type == "integer") return IsInteger(inst);
  return false;
}

bool AllUnique(const json& array) {
  std::vector<const json*> items;
  items.reserve(array.size());
  for (const json& e : array) items.push_back(&e);
  // nlohmann orders numbers numerically across int/float, as == compares them.
  std::sort(items.begin(), items.end(), [](const json* a, const json* b) { return *a < *b; });
  for (size_t i = 1; i < items.size(); ++i) {
    if (*items[i - 1] == *items[i]) return false;
  }
  return true;
}

// "#/a/b%25" -> JSON pointer "/a/b%" (RFC 6901 section 6: URI fragment form).
absl::StatusOr<json::json_pointer> RefPointer(const std::string& ref) {
  if (!absl::StartsWith(ref, "#")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "$ref \"", ref, "\": only local references (\"#\", \"#/definitions/x\") are supported"));
  }
  std::string decoded;
  for (size_t i = 1; i < ref.size(); ++i) {
    if (ref[i] == '%' && i + 2 < ref.size() && std::isxdigit(static_cast<unsigned char>(ref[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(ref[i + 2]))) {
      decoded.push_back(static_cast<char>(std::stoi(ref.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      decoded.push_back(ref[i]);
    }
  }
  try {
    return json::json_pointer(decoded);
  } catch (const json::exception&) {
    return absl::InvalidArgumentError(absl::StrCat("$ref \"", ref, "\": not a JSON pointer"));
  }
}

const json* Resolve(const json& root, const std::string& ref) {
  absl::StatusOr<json::json_pointer> p = RefPointer(ref);
  if (!p.ok() || !root.contains(*p)) return nullptr;
  return &root.at(*p);
}

const char* const kSchemaKeywords[] = {"additionalItems", "contains", "additionalProperties",
                                       "propertyNames", "if", "then", "else", "not"};
const char* const kSchemaMapKeywords[] = {"properties", "definitions", "patternProperties"};
const char* const kSchemaListKeywords[] = {"allOf", "anyOf", "oneOf"};
const char* const kCountKeywords[] = {"maxLength", "minLength", "maxItems",
                                      "minItems",  "maxProperties", "minProperties"};
const char* const kNumberKeywords[] = {"multipleOf", "maximum", "exclusiveMaximum", "minimum",
                                       "exclusiveMinimum"};

}  // namespace

// Compile-time walk: checks each keyword's shape, compiles patterns and
// follows $refs (so that schemas reached only through a $ref are checked too).
class JsonSchema::Checker {
 public:
  explicit Checker(JsonSchema* out) : out_(out) {}

  absl::Status Check(const json& s, const std::string& path) {
    if (s.is_boolean()) return absl::OkStatus();
    if (!s.is_object()) return Bad(path, "a schema must be an object or a boolean");
    for (const char* k : kCountKeywords) {
      if (const json* v = Member(s, k); v && !IsNonNegativeInteger(*v)) {
        return Bad(At(path, k), "must be a non-negative integer");
      }
    }
    for (const char* k : kNumberKeywords) {
      if (const json* v = Member(s, k); v && !v->is_number()) return Bad(At(path, k), "must be a number");
    }
    if (const json* v = Member(s, "multipleOf"); v && v->get<double>() <= 0) {
      return Bad(At(path, "multipleOf"), "must be greater than 0");
    }
    if (const json* v = Member(s, "uniqueItems"); v && !v->is_boolean()) {
      return Bad(At(path, "uniqueItems"), "must be a boolean");
    }
    if (const json* v = Member(s, "enum"); v && !v->is_array()) {
      return Bad(At(path, "enum"), "must be an array");
    }
    if (absl::Status st = CheckType(s, path); !st.ok()) return st;
    if (absl::Status st = CheckRequired(s, path); !st.ok()) return st;
    if (const json* v = Member(s, "pattern")) {
      if (!v->is_string()) return Bad(At(path, "pattern"), "must be a string");
      if (absl::Status st = AddRegex(v->get<std::string>(), At(path, "pattern")); !st.ok()) return st;
    }
    return CheckSubschemas(s, path);
  }

 private:
  static std::string At(const std::string& path, absl::string_view key) {
    return absl::StrCat(path, "/", key);
  }
  static absl::Status Bad(const std::string& path, absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(path.empty() ? "/" : path, ": ", why));
  }

  absl::Status CheckType(const json& s, const std::string& path) {
    const json* t = Member(s, "type");
    if (t == nullptr) return absl::OkStatus();
    static const absl::flat_hash_set<std::string> kTypes = {
        "null", "boolean", "object", "array", "number", "string", "integer"};
    std::vector<const json*> names;
    if (t->is_array()) {
      for (const json& e : *t) names.push_back(&e);
    } else {
      names.push_back(t);
    }
    for (const json* n : names) {
      if (!n->is_string() || !kTypes.contains(n->get<std::string>())) {
        return Bad(At(path, "type"),
                   "must name null, boolean, object, array, number, string or integer");
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckRequired(const json& s, const std::string& path) {
    const json* r = Member(s, "required");
    if (r == nullptr) return absl::OkStatus();
    bool ok = r->is_array() && std::all_of(r->begin(), r->end(),
                                           [](const json& e) { return e.is_string(); });
    return ok ? absl::OkStatus() : Bad(At(path, "required"), "must be an array of strings");
  }

  absl::Status AddRegex(const std::string& pattern, const std::string& path) {
    if (out_->regexes_.contains(pattern)) return absl::OkStatus();
    RE2::Options opts;
    opts.set_log_errors(false);
    opts.set_never_capture(true);
    auto re = std::make_unique<RE2>(pattern, opts);
    if (!re->ok()) {
      return Bad(path, absl::StrCat("RE2 cannot compile \"", pattern, "\": ", re->error(),
                                    " (backreferences and lookaround are not supported)"));
    }
    out_->regexes_.emplace(pattern, std::move(re));
    return absl::OkStatus();
  }

  absl::Status CheckSubschemas(const json& s, const std::string& path) {
    for (const char* k : kSchemaKeywords) {
      if (const json* v = Member(s, k)) {
        if (absl::Status st = Check(*v, At(path, k)); !st.ok()) return st;
      }
    }
    for (const char* k : kSchemaMapKeywords) {
      const json* v = Member(s, k);
      if (v == nullptr) continue;
      if (!v->is_object()) return Bad(At(path, k), "must be an object of schemas");
      for (auto it = v->begin(); it != v->end(); ++it) {
        if (std::string(k) == "patternProperties") {
          if (absl::Status st = AddRegex(it.key(), At(path, k)); !st.ok()) return st;
        }
        if (absl::Status st = Check(it.value(), At(At(path, k), it.key())); !st.ok()) return st;
      }
    }
    for (const char* k : kSchemaListKeywords) {
      const json* v = Member(s, k);
      if (v == nullptr) continue;
      if (!v->is_array() || v->empty()) return Bad(At(path, k), "must be a non-empty array of schemas");
      for (size_t i = 0; i < v->size(); ++i) {
        if (absl::Status st = Check((*v)[i], At(At(path, k), std::to_string(i))); !st.ok()) return st;
      }
    }
    if (absl::Status st = CheckItems(s, path); !st.ok()) return st;
    if (absl::Status st = CheckDependencies(s, path); !st.ok()) return st;
    return CheckRef(s, path);
  }

  absl::Status CheckItems(const json& s, const std::string& path) {
    const json* v = Member(s, "items");
    if (v == nullptr) return absl::OkStatus();
    if (!v->is_array()) return Check(*v, At(path, "items"));
    for (size_t i = 0; i < v->size(); ++i) {
      if (absl::Status st = Check((*v)[i], At(At(path, "items"), std::to_string(i))); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  absl::Status CheckDependencies(const json& s, const std::string& path) {
    const json* v = Member(s, "dependencies");
    if (v == nullptr) return absl::OkStatus();
    if (!v->is_object()) return Bad(At(path, "dependencies"), "must be an object");
    for (auto it = v->begin(); it != v->end(); ++it) {
      std::string p = At(At(path, "dependencies"), it.key());
      if (it.value().is_array()) {
        for (const json& e : it.value()) {
          if (!e.is_string()) return Bad(p, "must be an array of strings or a schema");
        }
      } else if (absl::Status st = Check(it.value(), p); !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckRef(const json& s, const std::string& path) {
    const json* v = Member(s, "$ref");
    if (v == nullptr) return absl::OkStatus();
    if (!v->is_string()) return Bad(At(path, "$ref"), "must be a string");
    const std::string ref = v->get<std::string>();
    absl::StatusOr<json::json_pointer> p = RefPointer(ref);
    if (!p.ok()) return Bad(At(path, "$ref"), p.status().message());
    const json* target = Resolve(out_->root_, ref);
    if (target == nullptr) return Bad(At(path, "$ref"), absl::StrCat("\"", ref, "\" resolves to nothing"));
    if (!followed_.insert(ref).second) return absl::OkStatus();
    return Check(*target, ref.substr(1));
  }

  JsonSchema* out_;
  absl::flat_hash_set<std::string> followed_;
};

// One validation: recursive over the schema and the instance.
class JsonSchema::Validator {
 public:
  explicit Validator(const JsonSchema& schema) : schema_(schema) {}

  // `ref_hops`: $refs followed since the instance last changed. Once a chain
  // is too long, every call fails fast so that branching cycles end too.
  bool Valid(const json& s, const json& inst, int ref_hops = 0) {
    if (loop_) return false;
    if (s.is_boolean()) return s.get<bool>();
    if (const json* ref = Member(s, "$ref")) {  // draft-07: $ref ignores its siblings
      if (ref_hops >= kMaxRefDepth) {
        loop_ = true;
        return false;
      }
      const json* target = Resolve(schema_.root_, ref->get<std::string>());
      return target != nullptr && Valid(*target, inst, ref_hops + 1);
    }
    return Generic(s, inst, ref_hops) && Numeric(s, inst) && String(s, inst) &&
           Array(s, inst) && Object(s, inst) && Combined(s, inst, ref_hops);
  }

  bool loop() const { return loop_; }

 private:
  bool Generic(const json& s, const json& inst, int hops) {
    if (const json* t = Member(s, "type")) {
      bool any = false;
      if (t->is_array()) {
        for (const json& n : *t) any = any || TypeMatches(inst, n.get<std::string>());
      } else {
        any = TypeMatches(inst, t->get<std::string>());
      }
      if (!any) return false;
    }
    if (const json* c = Member(s, "const"); c && !(*c == inst)) return false;
    if (const json* e = Member(s, "enum")) {
      if (std::none_of(e->begin(), e->end(), [&](const json& x) { return x == inst; })) return false;
    }
    if (const json* i = Member(s, "if")) {
      const json* branch = Valid(*i, inst, hops) ? Member(s, "then") : Member(s, "else");
      if (branch != nullptr && !Valid(*branch, inst, hops)) return false;
    }
    return true;
  }

  bool Numeric(const json& s, const json& inst) {
    if (!inst.is_number()) return true;
    const json* v;
    if ((v = Member(s, "multipleOf")) && !IsMultipleOf(inst, *v)) return false;
    if ((v = Member(s, "maximum")) && CompareNumbers(inst, *v) > 0) return false;
    if ((v = Member(s, "exclusiveMaximum")) && CompareNumbers(inst, *v) >= 0) return false;
    if ((v = Member(s, "minimum")) && CompareNumbers(inst, *v) < 0) return false;
    if ((v = Member(s, "exclusiveMinimum")) && CompareNumbers(inst, *v) <= 0) return false;
    return true;
  }

  bool String(const json& s, const json& inst) {
    if (!inst.is_string()) return true;
    const std::string& str = inst.get_ref<const std::string&>();
    const json* v;
    if ((v = Member(s, "maxLength")) && CodePoints(str) > v->get<double>()) return false;
    if ((v = Member(s, "minLength")) && CodePoints(str) < v->get<double>()) return false;
    if ((v = Member(s, "pattern")) && !Matches(v->get<std::string>(), str)) return false;
    return true;
  }

  bool Matches(const std::string& pattern, const std::string& text) const {
    auto it = schema_.regexes_.find(pattern);
    return it != schema_.regexes_.end() && RE2::PartialMatch(text, *it->second);
  }

  bool Array(const json& s, const json& inst) {
    if (!inst.is_array()) return true;
    const json* v;
    if ((v = Member(s, "maxItems")) && inst.size() > v->get<double>()) return false;
    if ((v = Member(s, "minItems")) && inst.size() < v->get<double>()) return false;
    if ((v = Member(s, "uniqueItems")) && v->get<bool>() && !AllUnique(inst)) return false;
    if (const json* items = Member(s, "items")) {
      size_t from = inst.size();
      if (items->is_array()) {
        from = std::min(items->size(), inst.size());
        for (size_t i = 0; i < from; ++i) {
          if (!Valid((*items)[i], inst[i])) return false;
        }
        if (const json* extra = Member(s, "additionalItems")) {
          for (size_t i = from; i < inst.size(); ++i) {
            if (!Valid(*extra, inst[i])) return false;
          }
        }
      } else {
        for (const json& e : inst) {
          if (!Valid(*items, e)) return false;
        }
      }
    }
    if (const json* c = Member(s, "contains")) {
      if (std::none_of(inst.begin(), inst.end(), [&](const json& e) { return Valid(*c, e); })) {
        return false;
      }
    }
    return true;
  }

  bool Object(const json& s, const json& inst) {
    if (!inst.is_object()) return true;
    const json* v;
    if ((v = Member(s, "maxProperties")) && inst.size() > v->get<double>()) return false;
    if ((v = Member(s, "minProperties")) && inst.size() < v->get<double>()) return false;
    if ((v = Member(s, "required"))) {
      for (const json& name : *v) {
        if (!inst.contains(name.get<std::string>())) return false;
      }
    }
    if ((v = Member(s, "propertyNames"))) {
      for (auto it = inst.begin(); it != inst.end(); ++it) {
        if (!Valid(*v, json(it.key()))) return false;
      }
    }
    if ((v = Member(s, "dependencies")) && !Dependencies(*v, inst)) return false;
    return Properties(s, inst);
  }

  bool Dependencies(const json& deps, const json& inst) {
    for (auto it = deps.begin(); it != deps.end(); ++it) {
      if (!inst.contains(it.key())) continue;
      if (it.value().is_array()) {
        for (const json& name : it.value()) {
          if (!inst.contains(name.get<std::string>())) return false;
        }
      } else if (!Valid(it.value(), inst)) {
        return false;
      }
    }
    return true;
  }

  bool Properties(const json& s, const json& inst) {
    const json* props = Member(s, "properties");
    const json* patterns = Member(s, "patternProperties");
    const json* extra = Member(s, "additionalProperties");
    if (props == nullptr && patterns == nullptr && extra == nullptr) return true;
    for (auto it = inst.begin(); it != inst.end(); ++it) {
      bool matched = false;
      if (props != nullptr) {
        if (auto p = props->find(it.key()); p != props->end()) {
          matched = true;
          if (!Valid(*p, it.value())) return false;
        }
      }
      if (patterns != nullptr) {
        for (auto p = patterns->begin(); p != patterns->end(); ++p) {
          if (!Matches(p.key(), it.key())) continue;
          matched = true;
          if (!Valid(p.value(), it.value())) return false;
        }
      }
      if (!matched && extra != nullptr && !Valid(*extra, it.value())) return false;
    }
    return true;
  }

  bool Combined(const json& s, const json& inst, int hops) {
    const json* v;
    if ((v = Member(s, "allOf"))) {
      for (const json& sub : *v) {
        if (!Valid(sub, inst, hops)) return false;
      }
    }
    if ((v = Member(s, "anyOf"))) {
      if (std::none_of(v->begin(), v->end(), [&](const json& sub) { return Valid(sub, inst, hops); })) {
        return false;
      }
    }
    if ((v = Member(s, "oneOf"))) {
      int n = 0;
      for (const json& sub : *v) n += Valid(sub, inst, hops) ? 1 : 0;
      if (n != 1) return false;
    }
    if ((v = Member(s, "not")) && Valid(*v, inst, hops)) return false;
    return true;
  }

  const JsonSchema& schema_;
  bool loop_ = false;
};

absl::StatusOr<std::unique_ptr<JsonSchema>> JsonSchema::Compile(absl::string_view schema_text) {
  absl::StatusOr<json> doc = ParseJsonRecord(schema_text);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a JSON document: ", doc.status().message().substr(12)));
  }
  auto out = std::unique_ptr<JsonSchema>(new JsonSchema());
  out->root_ = *std::move(doc);
  Checker checker(out.get());
  if (absl::Status s = checker.Check(out->root_, ""); !s.ok()) return s;
  return out;
}

absl::StatusOr<bool> JsonSchema::Validate(const json& instance) const {
  Validator v(*this);
  bool ok = v.Valid(root_, instance);
  if (v.loop()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FILTER_JSON_SCHEMA: $ref chain longer than ", kMaxRefDepth, " (a cycle)"));
  }
  return ok;
}

}  // namespace sluice::sink
