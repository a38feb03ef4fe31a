#include "sink/sinks/http/json_typecast.h"

#include <cerrno>
#include <cstdlib>
#include <functional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {
namespace {

using Json = nlohmann::ordered_json;
constexpr absl::string_view kVar = "SINK_HTTP_SERIALIZER_JSON_TYPECAST";

absl::Status Bad(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(kVar, ": ", why));
}

// Fills `c` from "$..name" or "$.a.b[0]".
absl::Status CompilePath(absl::string_view path, JsonTypecast* c) {
  if (path.size() > 3 && path.substr(0, 3) == "$..") {
    absl::string_view name = path.substr(3);
    if (name.find_first_of(".[]*") != absl::string_view::npos) {
      return Bad(absl::StrCat("unsupported path \"", path, "\" (use $.a.b, $.a[0] or $..name)"));
    }
    c->deep_name = std::string(name);
    return absl::OkStatus();
  }
  if (path.size() < 3 || path.substr(0, 2) != "$.") {
    return Bad(absl::StrCat("unsupported path \"", path, "\" (use $.a.b, $.a[0] or $..name)"));
  }
  absl::string_view rest = path.substr(1);
  while (!rest.empty()) {
    if (rest[0] == '.') {
      rest.remove_prefix(1);
      absl::string_view name = rest.substr(0, rest.find_first_of(".["));
      if (name.empty() || name == "*") break;
      c->steps.emplace_back(name);
      rest.remove_prefix(name.size());
    } else if (rest[0] == '[') {
      size_t close = rest.find(']');
      int index;
      if (close == absl::string_view::npos || !absl::SimpleAtoi(rest.substr(1, close - 1), &index) ||
          index < 0) {
        break;
      }
      c->steps.push_back(absl::StrCat("[", index, "]"));
      rest.remove_prefix(close + 1);
    } else {
      break;
    }
  }
  if (!rest.empty() || c->steps.empty()) {
    return Bad(absl::StrCat("unsupported path \"", path, "\" (use $.a.b, $.a[0] or $..name)"));
  }
  return absl::OkStatus();
}

// Java's toString() of the value json-smart would hold.
std::string Text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

absl::StatusOr<Json> Cast(const Json& v, JsonTypecast::Type type, absl::string_view path) {
  const std::string text = Text(v);
  auto fail = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat(kVar, ": invalid input for ", what, " at ", path, ": ", text));
  };
  switch (type) {
    case JsonTypecast::Type::kString:
      return Json(text);
    case JsonTypecast::Type::kInteger: {
      int32_t n;
      if (text.empty() || absl::ascii_isspace(text[0]) || !absl::SimpleAtoi(text, &n)) {
        return fail("INTEGER");
      }
      return Json(n);
    }
    case JsonTypecast::Type::kLong: {
      int64_t n;
      if (text.empty() || absl::ascii_isspace(text[0]) || !absl::SimpleAtoi(text, &n)) {
        return fail("LONG");
      }
      return Json(n);
    }
    case JsonTypecast::Type::kDouble: {
      double d;
      if (text.empty() || absl::ascii_isspace(text[0]) || !absl::SimpleAtod(text, &d)) {
        return fail("DOUBLE");
      }
      return Json(d);
    }
  }
  return fail("type");
}

absl::Status CastInPlace(Json* v, const JsonTypecast& c) {
  if (v->is_null()) return absl::OkStatus();
  auto cast = Cast(*v, c.type, c.path);
  if (!cast.ok()) return cast.status();
  *v = *std::move(cast);
  return absl::OkStatus();
}

absl::Status DeepScan(Json* node, const JsonTypecast& c) {
  if (node->is_object()) {
    for (auto& [k, v] : node->items()) {
      if (k == c.deep_name) {
        if (auto st = CastInPlace(&v, c); !st.ok()) return st;
      } else if (auto st = DeepScan(&v, c); !st.ok()) {
        return st;
      }
    }
  } else if (node->is_array()) {
    for (Json& v : *node) {
      if (auto st = DeepScan(&v, c); !st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<JsonTypecast>> ParseJsonTypecasts(absl::string_view text) {
  std::vector<JsonTypecast> out;
  if (absl::StripAsciiWhitespace(text).empty()) return out;
  Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    return Bad("must be a JSON array of {\"jsonPath\": ..., \"type\": ...}");
  }
  for (const Json& e : j) {
    if (!e.is_object() || !e.contains("jsonPath") || !e.contains("type") ||
        !e["jsonPath"].is_string() || !e["type"].is_string()) {
      return Bad("jsonPath or type should not be null");
    }
    JsonTypecast c;
    c.path = e["jsonPath"].get<std::string>();
    const std::string type = e["type"].get<std::string>();
    if (type == "INTEGER") {
      c.type = JsonTypecast::Type::kInteger;
    } else if (type == "LONG") {
      c.type = JsonTypecast::Type::kLong;
    } else if (type == "DOUBLE") {
      c.type = JsonTypecast::Type::kDouble;
    } else if (type == "STRING") {
      c.type = JsonTypecast::Type::kString;
    } else {
      return Bad(absl::StrCat("type \"", type, "\" is not INTEGER, LONG, DOUBLE or STRING"));
    }
    if (auto st = CompilePath(c.path, &c); !st.ok()) return st;
    out.push_back(std::move(c));
  }
  return out;
}

absl::StatusOr<std::string> ApplyJsonTypecasts(const std::vector<JsonTypecast>& casts,
                                               absl::string_view body) {
  if (casts.empty()) return std::string(body);
  Json doc = Json::parse(body.begin(), body.end(), nullptr, false);
  if (doc.is_discarded()) return std::string(body);
  for (const JsonTypecast& c : casts) {
    if (!c.deep_name.empty()) {
      if (auto st = DeepScan(&doc, c); !st.ok()) return st;
      continue;
    }
    Json* cur = &doc;
    for (const std::string& step : c.steps) {
      if (step[0] == '[') {
        size_t index = std::stoul(step.substr(1, step.size() - 2));
        cur = cur->is_array() && index < cur->size() ? &(*cur)[index] : nullptr;
      } else {
        cur = cur->is_object() && cur->contains(step) ? &(*cur)[step] : nullptr;
      }
      if (cur == nullptr) break;
    }
    if (cur == nullptr) continue;  // SUPPRESS_EXCEPTIONS: a missing path is left alone
    if (auto st = CastInPlace(cur, c); !st.ok()) return st;
  }
  return doc.dump();
}

}  // namespace sluice::sink
