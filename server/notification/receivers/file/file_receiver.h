// Receiver type "file": appends one JSON line per message to a file under
// the directory the server's configuration allows
// (`notification.file_receiver_dir`).
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_FILE_FILE_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_FILE_FILE_RECEIVER_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/receivers/context.h"

namespace sluice::notification::receivers {

// Config: url (required): a path relative to the directory `dir`, or an
// absolute path inside it (an optional "file://" prefix is ignored). Paths
// with ".." components, outside `dir`, or naming `dir` itself are
// InvalidArgument. With `dir` empty the type is disabled: ValidateConfig and
// Send are FailedPrecondition naming notification.file_receiver_dir.
//
// Send creates the file (mode 0640) but no directories, and refuses symbolic
// links on every component below `dir` (O_NOFOLLOW per component), files
// that are not regular, and files with more than one hard link, so nothing
// outside `dir` is ever written. Lines from concurrent workers never
// interleave (one lock for all files of this process).
class FileReceiver : public ReceiverPlugin {
 public:
  // `dir`: an absolute, symlink-free directory path (realpath), or "" to
  // disable the type.
  explicit FileReceiver(std::string dir);
  // The registry row's factory (see context.h).
  static std::unique_ptr<ReceiverPlugin> Create(const ReceiverContext& ctx) {
    return std::make_unique<FileReceiver>(ctx.options.file_dir);
  }
  absl::Status ValidateConfig(const nlohmann::json& config) const override;
  std::vector<std::string> DestinationKeys() const override { return {"url"}; }
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override;

  // The components of `url` below the directory (at least one), or the
  // errors of ValidateConfig.
  absl::StatusOr<std::vector<std::string>> Resolve(const nlohmann::json& config) const;

 private:
  std::string dir_;
  std::vector<std::string> dir_parts_;
  absl::Mutex mu_;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_FILE_FILE_RECEIVER_H_
