// A tiny real HTTP/1.1 server for sink tests: listens on 127.0.0.1 on a free
// port, serves each connection on its own thread with keep-alive, records
// every request and answers with the status a handler chooses.
#ifndef SLUICE_SINK_SINKS_TESTING_HTTP_TEST_SERVER_H_
#define SLUICE_SINK_SINKS_TESTING_HTTP_TEST_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace sluice::sink::testing {

// One received request.
struct HttpRequest {
  std::string method;  // "PUT"
  std::string target;  // path and query, e.g. "/x?a=1"
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  int connection = 0;  // 1-based index of the TCP connection that carried it

  // The first header named `name` (lower case), or "" when absent.
  std::string Header(const std::string& name) const;
};

// The server. Destruction stops it and joins all threads.
class HttpTestServer {
 public:
  // Returns the status to answer; runs on the connection's thread (may block).
  using Handler = std::function<int(const HttpRequest&)>;
  // A whole answer.
  struct Response {
    int status = 200;
    std::string body = "ok";
    std::string content_type = "text/plain";
    std::vector<std::pair<std::string, std::string>> headers;  // more, e.g. Location
  };
  using ResponseHandler = std::function<Response(const HttpRequest&)>;

  // Starts listening; `handler` defaults to always 200 (body "ok").
  static absl::StatusOr<std::unique_ptr<HttpTestServer>> Start(Handler handler = nullptr);
  // Starts listening, answering each request with `handler`'s response.
  static absl::StatusOr<std::unique_ptr<HttpTestServer>> StartWithResponses(
      ResponseHandler handler);
  ~HttpTestServer();

  int port() const { return port_; }
  // "http://127.0.0.1:<port>"
  std::string url() const;
  // Requests received so far, in arrival order.
  std::vector<HttpRequest> requests() const;
  // TCP connections accepted so far.
  int connections() const;

 private:
  HttpTestServer(int listen_fd, int port, ResponseHandler handler);
  void AcceptLoop();
  void Serve(int fd, int connection);

  const int listen_fd_;
  const int port_;
  const ResponseHandler handler_;
  int stop_pipe_[2] = {-1, -1};
  std::thread acceptor_;
  mutable absl::Mutex mu_;
  std::vector<HttpRequest> requests_ ABSL_GUARDED_BY(mu_);
  std::vector<int> open_fds_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> workers_ ABSL_GUARDED_BY(mu_);
  int connections_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_HTTP_TEST_SERVER_H_
