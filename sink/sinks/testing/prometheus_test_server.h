// A real Prometheus server (Debian's package) for sink tests, with the
// remote-write receiver on (--web.enable-remote-write-receiver), on a free
// loopback port with a private TSDB directory; stopped on destruction.
// Samples are read back through its HTTP API (/api/v1/query), as a user would.
#ifndef SLUICE_SINK_SINKS_TESTING_PROMETHEUS_TEST_SERVER_H_
#define SLUICE_SINK_SINKS_TESTING_PROMETHEUS_TEST_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::sink::testing {

class PrometheusTestServer {
 public:
  // Starts prometheus and waits (up to 30 s) for /-/ready.
  static absl::StatusOr<std::unique_ptr<PrometheusTestServer>> Start();
  ~PrometheusTestServer();

  // "http://127.0.0.1:<port>/api/v1/write", the form of SINK_PROM_SERVICE_URL.
  std::string write_url() const;
  // The JSON answer of GET /api/v1/query?query=<promql>&time=<unix seconds>.
  std::string Query(const std::string& promql, double time_s) const;
  // Stops the server (SIGKILL).
  void Kill();
  // Starts it again on the same port and TSDB directory (after Kill; samples
  // written before survive in its WAL) and waits for /-/ready.
  absl::Status Restart();

 private:
  PrometheusTestServer() = default;
  int port_ = 0;
  pid_t pid_ = -1;
  std::vector<std::string> argv_;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_PROMETHEUS_TEST_SERVER_H_
