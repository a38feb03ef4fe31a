// A scripted HTTP/1.1 server inside the test process: records every request
// and answers from a per-path script (then a per-path default), so tests can
// play receivers, Slack and PagerDuty endpoints with exact status sequences.
#ifndef SLUICE_INTEGRATION_FAKE_HTTP_SERVER_H_
#define SLUICE_INTEGRATION_FAKE_HTTP_SERVER_H_

#include <deque>
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

namespace sluice::integration {

class FakeHttpServer {
 public:
  struct Request {
    std::string method;
    std::string path;   // without the query
    std::string query;  // after '?', "" when none
    std::map<std::string, std::string> headers;  // lower-cased names
    std::string body;
    nlohmann::json Json() const { return nlohmann::json::parse(body, nullptr, false); }
  };
  struct Response {
    int status = 200;
    std::string body = "{}";
  };

  // Listens on a free 127.0.0.1 port; nullptr when it cannot bind.
  static std::unique_ptr<FakeHttpServer> Start();
  ~FakeHttpServer();

  int port() const { return port_; }
  // "http://127.0.0.1:<port><path>"
  std::string Url(const std::string& path) const;

  // Answers the next requests to `path` with `responses`, in order.
  void Script(const std::string& path, std::vector<Response> responses);
  // The answer for `path` once its script is used up (default 200 "{}").
  void SetDefault(const std::string& path, Response response);
  // Requests received so far for `path` ("" = all).
  std::vector<Request> Requests(const std::string& path = "");
  // Waits until at least `n` requests reached `path`; false on timeout.
  bool WaitForRequests(const std::string& path, size_t n, absl::Duration timeout);

 private:
  FakeHttpServer() = default;
  void Serve();
  void Handle(int fd);
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Request> requests_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::deque<Response>> scripts_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Response> defaults_ ABSL_GUARDED_BY(mu_);
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_FAKE_HTTP_SERVER_H_
