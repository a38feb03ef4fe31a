#include "sink/sinks/common/url_origin.h"

#include <curl/curl.h>

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/outbound.h"

namespace sluice::sink {
namespace {

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};

// A part of `u`, or "" when it has none.
std::string Part(CURLU* u, CURLUPart part, unsigned int flags = 0) {
  char* v = nullptr;
  if (curl_url_get(u, part, &v, flags) != CURLUE_OK || v == nullptr) return "";
  std::string out = v;
  curl_free(v);
  return out;
}

}  // namespace

absl::StatusOr<std::string> UrlOrigin(absl::string_view url) {
  std::unique_ptr<CURLU, UrlDeleter> u(curl_url());
  if (u == nullptr) return absl::ResourceExhaustedError("curl_url: out of memory");
  std::string text(url);
  if (CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, text.c_str(), 0); rc != CURLUE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("the URL does not parse (", curl_url_strerror(rc), ")"));
  }
  std::string scheme = absl::AsciiStrToLower(Part(u.get(), CURLUPART_SCHEME));
  std::string host = absl::AsciiStrToLower(Part(u.get(), CURLUPART_HOST));
  std::string port = Part(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
  if (scheme.empty() || host.empty() || port.empty()) {
    return absl::InvalidArgumentError("the URL has no scheme, host or port");
  }
  return absl::StrCat(scheme, "://", host, ":", port);
}

absl::StatusOr<std::string> TemplateOrigin(absl::string_view pattern, absl::string_view variable) {
  size_t placeholder = pattern.find("%s");
  if (placeholder != absl::string_view::npos) {
    size_t sep = pattern.find("://");
    size_t authority_end =
        sep == absl::string_view::npos ? sep : pattern.find_first_of("/?#", sep + 3);
    if (authority_end == absl::string_view::npos || placeholder < authority_end) {
      return absl::InvalidArgumentError(absl::StrCat(
          variable,
          ": a %s placeholder may only follow the URL's scheme://host:port (in the path, query "
          "or fragment), so that record values cannot choose where requests go"));
    }
  }
  // Placeholders filled with a harmless value: the rest of the text is checked
  // as it will be sent.
  std::string filled = absl::StrReplaceAll(pattern, {{"%s", "x"}});
  if (absl::Status s = ValidateHttpUrl(variable, filled); !s.ok()) return s;
  auto origin = UrlOrigin(filled);
  if (!origin.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(variable, ": ", origin.status().message()));
  }
  return origin;
}

}  // namespace sluice::sink
