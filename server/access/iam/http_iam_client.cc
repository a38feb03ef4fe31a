#include "server/access/iam/http_iam_client.h"

#include <curl/curl.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/http_client.h"
#include "server/access/core/json.h"

namespace sluice::access {
namespace {

size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

class HttpIamClient : public IamClient {
 public:
  HttpIamClient() { curl_global_init(CURL_GLOBAL_DEFAULT); }

  absl::StatusOr<google::protobuf::Struct> GetUser(const pb::IAM& iam,
                                                  const std::string& email) override {
    CURL* curl = curl_easy_init();
    if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
    std::string url = absl::StrReplaceAll(iam.config().url(), {{"{user_id}", UrlEscape(email)}});
    struct curl_slist* headers = nullptr;
    for (const auto& [k, v] : iam.config().headers()) {
      headers = curl_slist_append(headers, absl::StrCat(k, ": ", v).c_str());
    }
    const auto& auth = iam.config().auth();
    std::string userpwd;
    if (auth.type() == "basic") {
      userpwd = absl::StrCat(auth.username(), ":", auth.password());
      curl_easy_setopt(curl, CURLOPT_USERPWD, userpwd.c_str());
    } else if (auth.type() == "api_key") {
      headers = curl_slist_append(headers, absl::StrCat(auth.key(), ": ", auth.value()).c_str());
    } else if (auth.type() == "bearer") {
      headers = curl_slist_append(headers, absl::StrCat("Authorization: Bearer ", auth.token()).c_str());
    }
    std::string body;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Append);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (rc != CURLE_OK) {
      return absl::FailedPreconditionError(
          absl::StrCat("IAM: fetching the creator profile failed: ", curl_easy_strerror(rc)));
    }
    if (status < 200 || status >= 300) {
      return absl::FailedPreconditionError(
          absl::StrCat("IAM: HTTP ", status, " fetching the creator profile: ", body.substr(0, 200)));
    }
    auto doc = nlohmann::json::parse(body, nullptr, false);
    if (!doc.is_object()) {
      return absl::FailedPreconditionError("IAM: the profile response is not a JSON object");
    }
    if (iam.schema().empty()) return JsonToStruct(doc);
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [field, path] : iam.schema()) {
      const nlohmann::json* node = &doc;
      for (absl::string_view seg : absl::StrSplit(path, '.')) {
        if (!node->is_object() || !node->contains(std::string(seg))) {
          node = nullptr;
          break;
        }
        node = &(*node)[std::string(seg)];
      }
      out[field] = node ? *node : nlohmann::json();
    }
    return JsonToStruct(out);
  }
};

}  // namespace

std::unique_ptr<IamClient> NewHttpIamClient() { return std::make_unique<HttpIamClient>(); }

}  // namespace sluice::access
