// s3rver (npm, pinned in integration/gcp_fake/clients), a real S3 API server
// that checks AWS SigV4 signatures, for the S3 dead-letter queue's tests: on
// a free loopback port with a private directory and one bucket; stopped on
// destruction. Its credentials are s3rver's fixed S3RVER / S3RVER.
#ifndef SLUICE_SINK_SINKS_TESTING_S3_TEST_SERVER_H_
#define SLUICE_SINK_SINKS_TESTING_S3_TEST_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::sink::testing {

class S3TestServer {
 public:
  static constexpr char kAccessKey[] = "S3RVER";
  static constexpr char kSecretKey[] = "S3RVER";

  // Installs the pinned npm packages if needed (scripts/install-npm-deps.sh
  // from the runfiles), starts s3rver with `bucket` and waits (up to 30 s)
  // for it. Unavailable when node or the packages are missing.
  static absl::StatusOr<std::unique_ptr<S3TestServer>> Start(const std::string& bucket);
  ~S3TestServer();

  // "http://127.0.0.1:<port>", the form of DLQ_S3_ENDPOINT_URL.
  std::string endpoint() const;
  // Names of the objects stored in the bucket (from s3rver's directory).
  std::vector<std::string> Objects() const;
  // The content of object `name`.
  std::string Object(const std::string& name) const;
  void Kill();

 private:
  S3TestServer() = default;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string dir_, bucket_;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_S3_TEST_SERVER_H_
