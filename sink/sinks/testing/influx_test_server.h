// A real InfluxDB 1.x server (Debian's influxdb package) for sink tests, on
// free loopback ports with its data in a private directory, authentication
// on and an admin user; stopped on destruction. Data is read back with the
// `influx` CLI (Debian's influxdb-client), an outside client.
#ifndef SLUICE_SINK_SINKS_TESTING_INFLUX_TEST_SERVER_H_
#define SLUICE_SINK_SINKS_TESTING_INFLUX_TEST_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace sluice::sink::testing {

class InfluxTestServer {
 public:
  static constexpr char kUser[] = "admin";
  static constexpr char kPassword[] = "s3cret-pw";

  // Starts influxd, waits (up to 20 s) for /ping, creates the admin user and
  // `database`. Unavailable when it does not come up.
  static absl::StatusOr<std::unique_ptr<InfluxTestServer>> Start(const std::string& database);
  ~InfluxTestServer();

  // "http://127.0.0.1:<port>", the form of SINK_INFLUX_URL.
  std::string url() const;
  // Runs `influx -execute <query> -database <db> -format csv` as the admin
  // and returns its stdout.
  std::string Query(const std::string& query) const;

  // Stops the server (SIGKILL) to test an outage.
  void Kill();
  // Starts it again on the same port and data (after Kill); waits for /ping.
  absl::Status Restart();

 private:
  InfluxTestServer() = default;
  std::string conf_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string database_;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_INFLUX_TEST_SERVER_H_
