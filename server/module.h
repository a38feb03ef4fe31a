// An API module of sluice-server (access, notification): its gRPC services,
// its background jobs and its migrations. Modules are listed in one table,
// server/modules.cc, so that none drops out silently at link time.
#ifndef SLUICE_SERVER_MODULE_H_
#define SLUICE_SERVER_MODULE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/impl/codegen/service_type.h>
#include <yaml-cpp/yaml.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/types/span.h"
#include "common/auth/authenticator.h"
#include "common/crypto.h"
#include "common/db/migrate.h"
#include "common/db/pool.h"
#include "nlohmann/json.hpp"
#include "prometheus/registry.h"
#include "server/config.h"
#include "server/jobs.h"

namespace sluice::notification {
class NotificationService;
class TemplateService;
namespace receivers {
class SlackWebApi;
}  // namespace receivers
}  // namespace sluice::notification

namespace sluice::server {

// One key of a module's config section as documented: its dotted name under
// the section ("notifications.poll_interval"), its default written as YAML,
// and what it does (Markdown). A module lists its keys in one table, which
// its parser names in unknown-key errors, tools/docs/gen_reference.py renders
// into docs/configuration.md, and the module's test parses to prove that the
// defaults written are the parser's.
struct ConfigKeyDoc {
  const char* key;
  const char* default_yaml;
  const char* meaning;
};

// The keys of `keys` directly under `prefix` ("" or e.g. "notifications."),
// in the table's order and comma-separated, for unknown-key errors; a dotted
// key names its first part once.
inline std::string KnownConfigKeys(absl::Span<const ConfigKeyDoc> keys, absl::string_view prefix) {
  std::vector<std::string> out;
  for (const auto& k : keys) {
    absl::string_view key = k.key;
    if (!absl::ConsumePrefix(&key, prefix)) continue;
    std::string first(key.substr(0, key.find('.')));
    bool seen = false;
    for (const auto& o : out) seen = seen || o == first;
    if (!seen) out.push_back(first);
  }
  return absl::StrJoin(out, ", ");
}

// What one module offers the others, filled in while the modules are built
// (so read it only from StartBackground, after every module exists). The
// access module sends its events through the notification module's own
// services (issue 17, section 1).
struct ModuleLinks {
  notification::NotificationService* notifications = nullptr;  // set by notification
  notification::TemplateService* templates = nullptr;          // set by notification
  // Slack's Web API as slack receiver `id` (or a slack_channel receiver's
  // parent) is configured: its token and API URL. NotFound for no such
  // receiver, FailedPrecondition for another type. Set by notification.
  std::function<absl::StatusOr<std::unique_ptr<notification::receivers::SlackWebApi>>(uint64_t id)>
      slack_api;
  // Called with every rendered payload before it is sent: the receiver's
  // type and id, the notification's data. Set by access when Slack
  // interactions are configured (the Approve and Reject buttons); read by
  // notification's delivery.
  std::function<void(absl::string_view receiver_type, uint64_t receiver_id,
                     const nlohmann::json& data, nlohmann::json* payload)>
      decorate_payload;
};

// What a module may use; everything outlives the module.
struct ModuleContext {
  const Config* config;                 // whole server config
  const YAML::Node* module_config;      // the module's own section (may be Null)
  db::Pool* pool;                       // shared connection pool
  const Crypter* crypter;               // secrets at rest
  const auth::Authenticator* auth;      // who is calling (every handler asks it)
  prometheus::Registry* registry;       // metrics
  ModuleLinks* links = nullptr;         // shared between the modules (may be null)
};

class Module {
 public:
  virtual ~Module() = default;
  // Fully-qualified names of the gRPC services it registers (for server info).
  virtual std::vector<std::string> ServiceNames() const = 0;
  // The services to register; owned by the module.
  virtual std::vector<grpc::Service*> Services() = 0;
  // The module's jobs (server/jobs.h): the server runs each periodically
  // and on demand. Called once, after construction. Default: none.
  virtual std::vector<Job> Jobs() { return {}; }
  // Starts other background work (called once the server serves). Default: none.
  virtual void StartBackground() {}
  // Stops background work; must return within a few seconds. Default: none.
  virtual void Stop() {}
};

// One row of the module table.
struct ModuleEntry {
  const char* name;  // config section name, e.g. "access"
  // Creates the module; InvalidArgument for bad module config.
  absl::StatusOr<std::unique_ptr<Module>> (*create)(const ModuleContext& ctx);
  // The module's migrations (component = name).
  const db::MigrationSet& (*migrations)();
};

// The module table (server/modules.cc).
const std::vector<ModuleEntry>& Modules();

}  // namespace sluice::server

#endif  // SLUICE_SERVER_MODULE_H_
