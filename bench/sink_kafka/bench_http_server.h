// A minimal HTTP/1.1 receiver for the Kafka-side benchmark: answers every
// request 200 "{}" at once, keeps connections alive, and only counts requests
// and body bytes (no request is stored, so the bench's own memory stays flat).
// One thread per connection; bodies by Content-Length or chunked encoding.
#ifndef SLUICE_BENCH_SINK_KAFKA_BENCH_HTTP_SERVER_H_
#define SLUICE_BENCH_SINK_KAFKA_BENCH_HTTP_SERVER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace sluice::bench {

class BenchHttpServer {
 public:
  // Listens on a free 127.0.0.1 port; nullptr when it cannot bind.
  static std::unique_ptr<BenchHttpServer> Start();
  // Stops accepting, closes every connection and joins the threads.
  ~BenchHttpServer();

  // "http://127.0.0.1:<port><path>"
  std::string Url(const std::string& path) const;
  // Requests answered so far (all paths).
  int64_t requests() const { return requests_.load(); }
  // Request body bytes received so far (all paths).
  int64_t body_bytes() const { return body_bytes_.load(); }

 private:
  BenchHttpServer() = default;
  void Accept();
  void Serve(int fd);

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> body_bytes_{0};
  std::thread acceptor_;
  absl::Mutex mu_;
  std::vector<int> fds_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
};

}  // namespace sluice::bench

#endif  // SLUICE_BENCH_SINK_KAFKA_BENCH_HTTP_SERVER_H_
