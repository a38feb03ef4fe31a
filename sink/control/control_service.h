// The SinkControl gRPC service (proto/sluice/sink/v1beta1/sink_control.proto)
// on SINK_CONTROL_PORT, with the standard health service and reflection (so
// grpcurl works without .proto files).
#ifndef SLUICE_SINK_CONTROL_CONTROL_SERVICE_H_
#define SLUICE_SINK_CONTROL_CONTROL_SERVICE_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "sink/config.h"
#include "sink/env.h"
#include "sink/schema/schema_registry.h"
#include "sink/worker.h"

namespace grpc {
class Server;
class Service;
}  // namespace grpc

namespace sluice::sink {

// What the service reads and controls. Pointers are not owned and must
// outlive the server; `registry` is null for json input.
struct ControlDeps {
  const Env* env;
  const SinkConfig* config;
  WorkerControl* control;
  const SchemaRegistry* registry;
};

// The sluice-sink variables of `env` (by prefix: SOURCE_, SINK_, INPUT_,
// SCHEMA_, FILTER_, ERROR_, RETRY_, DLQ_, METRIC_, APPLICATION_, KAFKA_) with
// secret values (IsSecretName) replaced by "****".
std::map<std::string, std::string> MaskedConfig(const Env& env);

class ControlServer {
 public:
  // Listens on 0.0.0.0:`port` (0 picks a free port, see port()).
  // Unavailable when the port cannot be bound.
  static absl::StatusOr<std::unique_ptr<ControlServer>> Start(int port, ControlDeps deps);
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
