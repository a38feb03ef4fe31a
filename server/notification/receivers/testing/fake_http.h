// Test helpers for receiver types: an HttpClient that records requests and
// plays back canned replies.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_TESTING_FAKE_HTTP_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_TESTING_FAKE_HTTP_H_

#include <deque>
#include <vector>

#include "common/http_client.h"

namespace sluice::notification::receivers::receiver_testing {

// Records every request; replies with the queued results in order, then
// 200 "{}".
class FakeHttp : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest& r) override {
    requests.push_back(r);
    if (replies.empty()) return HttpResult{200, "{}"};
    auto next = replies.front();
    replies.pop_front();
    return next;
  }
  std::vector<HttpRequest> requests;
  std::deque<absl::StatusOr<HttpResult>> replies;
};

}  // namespace sluice::notification::receivers::receiver_testing

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_TESTING_FAKE_HTTP_H_
