#include "server/access/iam/http_iam_client.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/http_client.h"
#include "server/access/core/json.h"

namespace sluice::access {
namespace {

// The largest IAM answer kept whole when the policy has no iam.schema.
constexpr size_t kMaxUnmappedProfileBytes = 16 << 10;

// Goes through the shared HttpClient, so the call is restricted like every
// other outbound call (http/https only, denied networks, no redirects, a
// capped response body), and errors never echo the response body.
class HttpIamClient : public IamClient {
 public:
  HttpIamClient() : http_(NewCurlHttpClient()) {}

  absl::StatusOr<google::protobuf::Struct> GetUser(const pb::IAM& iam,
                                                  const std::string& email) override {
    HttpRequest req;
    req.method = "GET";
    req.url = absl::StrReplaceAll(iam.config().url(), {{"{user_id}", UrlEscape(email)}});
    req.timeout = absl::Seconds(5);
    for (const auto& [k, v] : iam.config().headers()) req.headers.push_back(absl::StrCat(k, ": ", v));
    const auto& auth = iam.config().auth();
    if (auth.type() == "basic") {
      // What CURLOPT_USERPWD sends (RFC 7617), without percent-encoding.
      req.headers.push_back(absl::StrCat(
          "Authorization: Basic ", absl::Base64Escape(absl::StrCat(auth.username(), ":",
                                                                   auth.password()))));
    } else if (auth.type() == "api_key") {
      req.headers.push_back(absl::StrCat(auth.key(), ": ", auth.value()));
    } else if (auth.type() == "bearer") {
      req.headers.push_back(absl::StrCat("Authorization: Bearer ", auth.token()));
    }
    auto res = http_->Do(req);
    if (!res.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("IAM: fetching the creator profile failed: ", res.status().message()));
    }
    if (res->status < 200 || res->status >= 300) {
      return absl::FailedPreconditionError(
          absl::StrCat("IAM: HTTP ", res->status, " fetching the creator profile"));
    }
    const std::string& body = res->body;
    auto doc = nlohmann::json::parse(body, nullptr, false);
    if (!doc.is_object()) {
      return absl::FailedPreconditionError("IAM: the profile response is not a JSON object");
    }
    if (iam.schema().empty()) {
      // Kept whole as appeal.creator: bounded, so an IAM URL cannot turn the
      // appeal into a store for arbitrary documents (review C4).
      if (body.size() > kMaxUnmappedProfileBytes) {
        return absl::FailedPreconditionError(absl::StrCat(
            "IAM: the profile response is over ", kMaxUnmappedProfileBytes,
            " bytes; set iam.schema to keep only the fields the policy needs"));
      }
      return JsonToStruct(doc);
    }
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

 private:
  std::unique_ptr<HttpClient> http_;
};

}  // namespace

std::unique_ptr<IamClient> NewHttpIamClient() { return std::make_unique<HttpIamClient>(); }

}  // namespace sluice::access
