#include "sink/sinks/http/json_template.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {
namespace {

constexpr absl::string_view kVar = "SINK_HTTP_JSON_BODY_TEMPLATE";

// Splits "$.a.b[0].c" into {"a", "b", "[0]", "c"}.
absl::StatusOr<std::vector<std::string>> SplitPath(absl::string_view path) {
  std::vector<std::string> steps;
  absl::string_view rest = path.substr(1);  // drop '$'
  while (!rest.empty()) {
    if (rest[0] == '.') {
      rest.remove_prefix(1);
      size_t end = rest.find_first_of(".[");
      absl::string_view name = rest.substr(0, end);
      if (name.empty()) break;
      steps.emplace_back(name);
      rest.remove_prefix(name.size());
    } else if (rest[0] == '[') {
      size_t close = rest.find(']');
      int index;
      if (close == absl::string_view::npos || !absl::SimpleAtoi(rest.substr(1, close - 1), &index)) {
        break;
      }
      steps.push_back(absl::StrCat("[", index, "]"));
      rest.remove_prefix(close + 1);
    } else {
      break;
    }
  }
  if (!rest.empty() || steps.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kVar, ": unsupported path \"", path, "\" (use $.a.b or $.a[0])"));
  }
  return steps;
}

}  // namespace

absl::StatusOr<JsonTemplate::ParseOption> JsonTemplate::ParseOptionFromEnv(
    absl::string_view value) {
  const std::string v = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(value));
  if (v.empty()) return ParseOption::kNone;
  if (v == "DEFAULT_PATH_LEAF_TO_NULL") return ParseOption::kDefaultPathLeafToNull;
  if (v == "SUPPRESS_EXCEPTIONS") return ParseOption::kSuppressExceptions;
  if (v == "ALWAYS_RETURN_LIST") return ParseOption::kAlwaysReturnList;
  if (v == "REQUIRE_PROPERTIES") return ParseOption::kRequireProperties;
  if (v == "AS_PATH_LIST") {
    return absl::InvalidArgumentError(
        "SINK_HTTP_JSON_BODY_TEMPLATE_PARSE_OPTION=AS_PATH_LIST is not supported (it puts path "
        "names instead of values in the body); unset it or use another option");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "SINK_HTTP_JSON_BODY_TEMPLATE_PARSE_OPTION: invalid JSONPath option \"", value,
      "\"; valid: DEFAULT_PATH_LEAF_TO_NULL, ALWAYS_RETURN_LIST, SUPPRESS_EXCEPTIONS, "
      "REQUIRE_PROPERTIES"));
}

absl::StatusOr<JsonTemplate> JsonTemplate::Parse(absl::string_view text, ParseOption option) {
  if (nlohmann::json::parse(text.begin(), text.end(), nullptr, false).is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(kVar, " must be valid JSON"));
  }
  JsonTemplate t;
  t.option_ = option;
  size_t pos = 0;
  std::string literal;
  while (pos < text.size()) {
    size_t start = text.find("\"$.", pos);
    if (start == absl::string_view::npos) break;
    // Like Firehose's "\$\.[^\s\\]*?" pattern: no blanks or backslashes inside.
    size_t end = start + 1;
    while (end < text.size() && text[end] != '"' && !absl::ascii_isspace(text[end]) &&
           text[end] != '\\') {
      ++end;
    }
    if (end >= text.size() || text[end] != '"') {
      absl::StrAppend(&literal, text.substr(pos, end - pos));
      pos = end;
      continue;
    }
    absl::StrAppend(&literal, text.substr(pos, start - pos));
    t.pieces_.push_back(Piece{std::move(literal)});
    literal.clear();
    Piece p;
    p.is_path = true;
    p.path = std::string(text.substr(start + 1, end - start - 1));
    if (p.path == "$._all_") {
      p.all = true;
    } else {
      auto steps = SplitPath(p.path);
      if (!steps.ok()) return steps.status();
      p.steps = *std::move(steps);
      t.needs_parse_ = true;
    }
    t.pieces_.push_back(std::move(p));
    pos = end + 1;
  }
  absl::StrAppend(&literal, text.substr(pos));
  t.pieces_.push_back(Piece{std::move(literal)});
  return t;
}

absl::StatusOr<std::string> JsonTemplate::Render(absl::string_view message_json) const {
  nlohmann::json parsed;
  if (needs_parse_) {
    parsed = nlohmann::json::parse(message_json.begin(), message_json.end(), nullptr, false);
    if (parsed.is_discarded()) return absl::InvalidArgumentError("message is not valid JSON");
  }
  std::string out;
  for (const Piece& p : pieces_) {
    if (!p.is_path) {
      out.append(p.literal);
      continue;
    }
    if (p.all) {
      out.append(message_json.data(), message_json.size());
      continue;
    }
    const nlohmann::json* cur = &parsed;
    bool omitted = false;
    for (size_t i = 0; i < p.steps.size(); ++i) {
      const std::string& step = p.steps[i];
      if (step[0] == '[') {
        size_t index = std::stoul(step.substr(1, step.size() - 2));
        if (!cur->is_array() || index >= cur->size()) cur = nullptr;
        else cur = &(*cur)[index];
      } else {
        if (!cur->is_object()) {
          cur = nullptr;
        } else {
          auto it = cur->find(step);
          cur = it == cur->end() ? nullptr : &*it;
        }
      }
      if (cur == nullptr) {
        const bool leaf = i + 1 == p.steps.size();
        if (option_ == ParseOption::kSuppressExceptions ||
            (leaf && option_ == ParseOption::kDefaultPathLeafToNull)) {
          omitted = true;  // Firehose: "Missing value for path", replaced by ""
          break;
        }
        return absl::InvalidArgumentError(
            absl::StrCat("path ", p.path, " not found in the message"));
      }
    }
    if (omitted) continue;
    if (option_ == ParseOption::kAlwaysReturnList) {
      out.append("[").append(cur->dump()).append("]");
    } else {
      out.append(cur->dump());
    }
  }
  return out;
}

}  // namespace sluice::sink
