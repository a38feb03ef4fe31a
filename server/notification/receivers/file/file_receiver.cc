#include "server/notification/receivers/file/file_receiver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/notification/receivers/config_util.h"

namespace sluice::notification::receivers {
namespace {

constexpr char kDisabled[] =
    "the file receiver type is disabled: set notification.file_receiver_dir in the server "
    "config to the directory it may write under";

// Splits a path into components, dropping empty ones and "."; false when a
// component is "..".
bool SplitPath(absl::string_view path, std::vector<std::string>* out) {
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    if (part == "..") return false;
    out->emplace_back(part);
  }
  return true;
}

// Closes a descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

absl::Status OpenError(const std::string& rel, int err) {
  if (err == ELOOP || err == ENOTDIR) {
    return absl::FailedPreconditionError(
        absl::StrCat("open ", rel, ": a component is a symbolic link or not a directory (refused)"));
  }
  return absl::FailedPreconditionError(absl::StrCat("open ", rel, ": ", std::strerror(err)));
}

}  // namespace

FileReceiver::FileReceiver(std::string dir) : dir_(std::move(dir)) {
  SplitPath(dir_, &dir_parts_);
}

absl::StatusOr<std::vector<std::string>> FileReceiver::Resolve(const nlohmann::json& config) const {
  if (dir_.empty()) return absl::FailedPreconditionError(kDisabled);
  if (auto st = RequireString(config, "url"); !st.ok()) return st;
  std::string path = config["url"].get<std::string>();
  if (absl::StartsWith(path, "file://")) path = path.substr(7);
  if (path.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError("configurations.url: contains a NUL character");
  }
  std::vector<std::string> parts;
  if (!SplitPath(path, &parts)) {
    return absl::InvalidArgumentError("configurations.url: must not contain \"..\" components");
  }
  if (!path.empty() && path[0] == '/') {
    bool inside = parts.size() > dir_parts_.size() &&
                  std::equal(dir_parts_.begin(), dir_parts_.end(), parts.begin());
    if (!inside) {
      return absl::InvalidArgumentError(absl::StrCat(
          "configurations.url: \"", path, "\" is outside notification.file_receiver_dir (", dir_,
          "); give a path relative to it"));
    }
    parts.erase(parts.begin(), parts.begin() + dir_parts_.size());
  }
  if (parts.empty()) {
    return absl::InvalidArgumentError(
        "configurations.url: must name a file inside notification.file_receiver_dir");
  }
  return parts;
}

absl::Status FileReceiver::ValidateConfig(const nlohmann::json& config) const {
  auto parts = Resolve(config);
  return parts.ok() ? absl::OkStatus() : parts.status();
}

absl::Status FileReceiver::Send(const nlohmann::json& config, const nlohmann::json& payload) {
  auto parts = Resolve(config);
  if (!parts.ok()) return parts.status();
  std::string rel = absl::StrJoin(*parts, "/");
  std::string line = payload.dump() + "\n";
  absl::MutexLock lock(&mu_);
  Fd dir(open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0) {
    return absl::FailedPreconditionError(absl::StrCat("open notification.file_receiver_dir: ",
                                                      std::strerror(errno)));
  }
  // Walk down one component at a time: O_NOFOLLOW refuses a symbolic link
  // anywhere below the directory, so the final file is inside it.
  for (size_t i = 0; i + 1 < parts->size(); ++i) {
    int next = openat(dir.get(), (*parts)[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) return OpenError(rel, errno);
    dir.reset(next);
  }
  // O_NONBLOCK: a FIFO planted here must not block the worker.
  Fd file(openat(dir.get(), parts->back().c_str(),
                 O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0640));
  if (file.get() < 0) return OpenError(rel, errno);
  struct stat st;
  if (fstat(file.get(), &st) != 0) return OpenError(rel, errno);
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("open ", rel, ": not a regular file"));
  }
  if (st.st_nlink > 1) {
    // A hard link could make the write land on a file outside the directory.
    return absl::FailedPreconditionError(
        absl::StrCat("open ", rel, ": the file has several hard links (refused)"));
  }
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = write(file.get(), line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::UnavailableError(absl::StrCat("write ", rel, ": ", std::strerror(errno)));
    off += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace sluice::notification::receivers
