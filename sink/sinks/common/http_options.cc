#include "sink/sinks/common/http_options.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace sluice::sink {

bool IsValidHeaderValue(absl::string_view value) {
  for (char ch : value) {
    unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

bool IsHeaderName(absl::string_view name) {
  if (name.empty()) return false;
  for (char ch : name) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (absl::ascii_isalnum(c)) continue;
    if (absl::string_view("!#$%&'*+-.^_`|~").find(ch) == absl::string_view::npos) return false;
  }
  return true;
}

absl::StatusOr<std::vector<std::pair<int, int>>> ParseStatusRanges(absl::string_view text,
                                                                   absl::string_view variable) {
  std::vector<std::pair<int, int>> out;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> ends = absl::StrSplit(part, '-');
    int lo, hi;
    if (ends.size() != 2 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(ends[0]), &lo) ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(ends[1]), &hi) || lo > hi) {
      return absl::InvalidArgumentError(absl::StrCat(
          variable, ": bad range \"", part, "\" (want <low>-<high>, e.g. 400-600)"));
    }
    out.emplace_back(lo, hi);
  }
  return out;
}

bool InStatusRanges(const std::vector<std::pair<int, int>>& ranges, int status) {
  for (const auto& [lo, hi] : ranges) {
    if (status >= lo && status <= hi) return true;
  }
  return false;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseHeaderList(
    absl::string_view text, absl::string_view variable) {
  std::vector<std::pair<std::string, std::string>> out;
  for (absl::string_view kv : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    size_t colon = kv.find(':');
    if (colon == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(variable, ": \"", kv, "\" is not name:value"));
    }
    out.emplace_back(std::string(absl::StripAsciiWhitespace(kv.substr(0, colon))),
                     std::string(absl::StripAsciiWhitespace(kv.substr(colon + 1))));
    if (!IsHeaderName(out.back().first) || !IsValidHeaderValue(out.back().second)) {
      return absl::InvalidArgumentError(
          absl::StrCat(variable, ": \"", out.back().first,
                       "\" is not a header name, or its value holds control characters"));
    }
  }
  return out;
}

ErrorType HttpStatusErrorType(int status) {
  if (status >= 500 && status < 600) return ErrorType::kSink5xxError;
  if (status >= 400 && status < 500) return ErrorType::kSink4xxError;
  return ErrorType::kSinkUnknownError;
}

HttpOutcome FirehoseHttpOutcome(int status, const std::vector<std::pair<int, int>>& retry_ranges) {
  if (status >= 200 && status < 300) return HttpOutcome::kDelivered;
  if (InStatusRanges(retry_ranges, status)) return HttpOutcome::kFailed;
  if (status < 400 || status > 599) return HttpOutcome::kNotStored;
  return HttpOutcome::kDropped;
}

absl::StatusOr<HttpTarget> ReadHttpTarget(const Env& env, absl::string_view url_variable,
                                          absl::string_view timeout_variable, int default_ms) {
  HttpTarget t;
  auto url = env.Require(url_variable);
  if (!url.ok()) return url.status();
  t.url = *url;
  if (!absl::StartsWith(t.url, "http://") && !absl::StartsWith(t.url, "https://")) {
    return absl::InvalidArgumentError(
        absl::StrCat(url_variable, " must be an http:// or https:// URL"));
  }
  while (absl::EndsWith(t.url, "/")) t.url.pop_back();
  auto timeout = env.GetPositiveInt(timeout_variable, default_ms);
  if (!timeout.ok()) return timeout.status();
  t.timeout_ms = *timeout;
  return t;
}

}  // namespace sluice::sink
