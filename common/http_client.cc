#include "common/http_client.h"

#include <curl/curl.h>

#include "absl/strings/str_cat.h"
#include "common/outbound.h"

namespace sluice {
namespace {

size_t Collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

class CurlHttpClient : public HttpClient {
 public:
  CurlHttpClient() {
    static const bool init = [] {
      curl_global_init(CURL_GLOBAL_DEFAULT);
      return true;
    }();
    (void)init;
  }

  absl::StatusOr<HttpResult> Do(const HttpRequest& req) override {
    CURL* curl = curl_easy_init();
    if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
    HttpResult result;
    curl_slist* headers = nullptr;
    for (const std::string& h : req.headers) headers = curl_slist_append(headers, h.c_str());
    RestrictOutbound(curl);  // http/https only, deny list after DNS
    curl_easy_setopt(curl, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    if (req.method != "GET" || !req.body.empty()) {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(req.body.size()));
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(req.timeout)));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      return absl::DeadlineExceededError(absl::StrCat(req.method, " ", req.url, ": timed out"));
    }
    if (rc != CURLE_OK) {
      return absl::UnavailableError(
          absl::StrCat(req.method, " ", req.url, ": ", curl_easy_strerror(rc)));
    }
    return result;
  }
};

}  // namespace

std::string UrlEscape(absl::string_view s) {
  std::string out;
  char* e = curl_easy_escape(nullptr, s.data(), static_cast<int>(s.size()));
  if (e != nullptr) {
    out = e;
    curl_free(e);
  }
  return out;
}

std::unique_ptr<HttpClient> NewCurlHttpClient() { return std::make_unique<CurlHttpClient>(); }

absl::Status HttpStatusToError(absl::string_view what, const HttpResult& result) {
  std::string msg = absl::StrCat(what, ": HTTP ", result.status, ": ", result.body.substr(0, 200));
  if (result.status == 429) return absl::ResourceExhaustedError(msg);
  if (result.status >= 500) return absl::UnavailableError(msg);
  return absl::FailedPreconditionError(msg);
}

}  // namespace sluice
