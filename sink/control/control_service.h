// The SinkControl gRPC service (proto/sluice/sink/v1beta1/sink_control.proto)
// on SINK_CONTROL_HOST:SINK_CONTROL_PORT (default 127.0.0.1:8082), with the
// standard health service and reflection (so grpcurl works without .proto
// files). Every SinkControl method requires authentication when a token or
// mTLS is configured (review H6); health and reflection stay open.
#ifndef SLUICE_SINK_CONTROL_CONTROL_SERVICE_H_
#define SLUICE_SINK_CONTROL_CONTROL_SERVICE_H_

#include <map>
#include <memory>
#include <string>

#include <grpcpp/server_context.h>

#include "absl/status/statusor.h"
#include "sink/config.h"
#include "sink/control/masking.h"
#include "sink/env.h"
#include "absl/synchronization/mutex.h"
#include "sink/schema/schema_registry.h"
#include "sink/worker.h"

namespace grpc {
class Server;
class Service;
}  // namespace grpc

namespace sluice::sink {

// Start-up progress, shown by GetStatus (started, not_started_reason).
// Thread-safe. Begins "not started".
class StartupState {
 public:
  // Still starting, because of `reason` (e.g. the last schema fetch error).
  void SetNotStarted(std::string reason) ABSL_LOCKS_EXCLUDED(mu_);
  // Started; `registry` (null for json input) is used from now on.
  void MarkStarted(const SchemaRegistry* registry) ABSL_LOCKS_EXCLUDED(mu_);
  bool started() const ABSL_LOCKS_EXCLUDED(mu_);
  std::string reason() const ABSL_LOCKS_EXCLUDED(mu_);
  const SchemaRegistry* registry() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  mutable absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  std::string reason_ ABSL_GUARDED_BY(mu_) = "starting";
  const SchemaRegistry* registry_ ABSL_GUARDED_BY(mu_) = nullptr;
};

// What the service reads and controls. Pointers are not owned and must
// outlive the server; `registry` is null for json input. With `startup`
// set, the registry comes from it (once started) and `registry` is unused.
struct ControlDeps {
  const Env* env;
  const SinkConfig* config;
  WorkerControl* control;
  const SchemaRegistry* registry;
  const StartupState* startup = nullptr;
};

// Decides whether a SinkControl call may proceed. Accepted proofs: the
// shared token as `authorization: Bearer <token>` metadata (compared in
// constant time), or a client certificate verified by the mTLS listener;
// either one suffices. With neither configured every call is accepted:
// ParseSinkConfig allows that only on a loopback SINK_CONTROL_HOST.
class ControlAuthenticator {
 public:
  // Loads the token (SINK_CONTROL_TOKEN_FILE or SINK_CONTROL_TOKEN, via
  // auth::LoadSecret): NotFound for an unreadable file or unset variable,
  // InvalidArgument for a token shorter than 16 bytes; errors name the
  // variable.
  static absl::StatusOr<std::unique_ptr<ControlAuthenticator>> Create(const ControlConfig& config);

  // OK, or Unauthenticated saying what is missing or wrong (never the token).
  absl::Status Check(const grpc::ServerContext& context) const;

 private:
  ControlAuthenticator() = default;
  std::string token_;  // "" when no token is configured
  bool mtls_ = false;
};

// "host:port", with brackets around an IPv6 literal ("[::1]:8082").
std::string ControlListenAddress(const std::string& host, int port);

class ControlServer {
 public:
  // Listens on config.host:config.port (port 0 picks a free port, see
  // port()), with TLS/mTLS per the SINK_CONTROL_TLS_* files. Errors: those of
  // ControlAuthenticator::Create and auth::MakeServerCredentials (naming the
  // variables), Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<ControlServer>> Start(const ControlConfig& config,
                                                              ControlDeps deps);
  ~ControlServer();

  int port() const { return port_; }
  // Stops serving (waits briefly for in-flight calls). Idempotent.
  void Shutdown();

 private:
  ControlServer() = default;
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_CONTROL_CONTROL_SERVICE_H_
