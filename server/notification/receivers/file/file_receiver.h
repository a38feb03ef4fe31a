// Receiver type "file": appends one JSON line per message to the file `url`.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_FILE_FILE_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_FILE_FILE_RECEIVER_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/notification/core/receiver_plugin.h"

namespace sluice::notification::receivers {

// Config: url (required, an absolute path). Lines from concurrent workers
// never interleave (one lock for all files of this process).
class FileReceiver : public ReceiverPlugin {
 public:
  absl::Status ValidateConfig(const nlohmann::json& config) const override;
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override;

 private:
  absl::Mutex mu_;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_FILE_FILE_RECEIVER_H_
