// A small multi-threaded HTTP/1.1 server for the stateful fakes of the BI
// providers' REST APIs (fake_metabase, fake_grafana, fake_tableau): one
// handler answers every request, and failures are injectable per method and
// path prefix (a status such as 401, 403, 404, 409 or 5xx, and/or a delay
// for timeouts). Listens on 127.0.0.1 only; one request per connection.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_TESTING_FAKE_REST_SERVER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_TESTING_FAKE_REST_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace sluice::access::testing {

// One request as the handler sees it.
struct FakeRequest {
  std::string method;
  std::string path;                               // percent-decoded, without the query
  std::multimap<std::string, std::string> query;  // percent-decoded
  std::map<std::string, std::string> headers;     // lower-cased names
  std::string body;
  // The body as JSON (discarded value when it is not JSON).
  nlohmann::json Json() const;
  // The first value of query parameter `key`, or "".
  std::string Query(const std::string& key) const;
  // Header `name` (lower case), or "".
  std::string Header(const std::string& name) const;
};

// The handler's answer: `body` is sent as JSON unless it is null (then an
// empty body).
struct FakeResponse {
  int status = 200;
  nlohmann::json body = nlohmann::json::object();
};

// An injected failure for the next `times` requests whose method equals
// `method` ("" = any) and whose path starts with `path_prefix`.
struct Fault {
  std::string method;
  std::string path_prefix;
  // The status answered instead of the handler's (state unchanged); 0 = the
  // handler answers (after `delay`).
  int status = 500;
  nlohmann::json body = {{"message", "injected failure"}};
  // Wait before answering, e.g. longer than the client's timeout.
  absl::Duration delay = absl::ZeroDuration();
  int times = 1;
};

class FakeRestServer {
 public:
  using Handler = std::function<FakeResponse(const FakeRequest&)>;
  // Listens on a free 127.0.0.1 port; nullptr when it cannot bind.
  static std::unique_ptr<FakeRestServer> Start(Handler handler);
  ~FakeRestServer();

  // "http://127.0.0.1:<port>"
  std::string base_url() const;
  void Inject(Fault fault);
  void ClearFaults();
  // "METHOD /path" of every request so far, in arrival order.
  std::vector<std::string> Log();
  // Requests so far with `method` ("" = any) and a path starting with `prefix`.
  int Count(const std::string& method, const std::string& prefix);
  // Header `name` (lower case) of every request so far, in arrival order
  // ("" where a request lacked it), e.g. each call's W3C traceparent.
  std::vector<std::string> HeaderValues(const std::string& name);

 private:
  FakeRestServer() = default;
  void Serve();
  void Handle(int fd);
  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread accept_thread_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int active_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<Fault> faults_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> log_ ABSL_GUARDED_BY(mu_);
  std::vector<std::map<std::string, std::string>> headers_ ABSL_GUARDED_BY(mu_);
};

// Percent-decodes `s` ('+' stays '+').
std::string PercentDecode(const std::string& s);

}  // namespace sluice::access::testing

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_TESTING_FAKE_REST_SERVER_H_
