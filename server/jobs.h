// Background jobs of sluice-server: one registry of named jobs that runs each
// periodically and once on demand (`sluice-server job run <name>`, the
// ServerService.RunJob RPC / `sluicectl job run <name>`). Each run holds the
// job's cluster-wide lock, so one replica at a time runs a job.
//
// Job names follow Guardian's (`fetch_resources`, `revoke_expired_grants`,
// `expiring_grant_notification`, `pending_approvals_reminder`) and Siren's
// (`cleanup_queue`) `job run` names.
#ifndef SLUICE_SERVER_JOBS_H_
#define SLUICE_SERVER_JOBS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/auth/caller.h"

namespace sluice::server {

// What one run of a job did.
struct JobResult {
  // True when another replica held the job's lock: the job did not run.
  bool skipped = false;
  // One line for people, e.g. "skipped: another replica holds the lock".
  std::string message;
  // What the run did, by name (e.g. "grants_expired" → 3); empty when skipped.
  std::map<std::string, int64_t> counts;
};

// One job of a module (server::Module::Jobs()).
struct Job {
  std::string name;         // unique, e.g. "revoke_expired_grants"
  std::string description;  // one line, shown in errors and the README
  int64_t lock_key = 0;     // its PostgreSQL advisory lock key (unique per job)
  // Period of the background run; zero or negative: on demand only.
  absl::Duration interval = absl::ZeroDuration();
  // Who may run it on demand (borrowed from the module's config) and the
  // setting that names them, e.g. "access.admins".
  const auth::AdminList* admins = nullptr;
  std::string admin_setting;
  // The work; called with the lock held. Returns the counts of what it did,
  // or an error status (the run fails with it).
  std::function<absl::StatusOr<std::map<std::string, int64_t>>()> run;
};

// Runs `body` while holding lock `key`; returns whether it ran (false: held
// elsewhere). In production db::RunExclusive on the server's pool.
using JobLockFn =
    std::function<absl::StatusOr<bool>(int64_t key, const std::function<void()>& body)>;

// The registry of every module's jobs, and their periodic runner.
class JobRunner {
 public:
  explicit JobRunner(JobLockFn lock);
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Registers a job. InvalidArgument for an empty name or no `run`;
  // AlreadyExists for a name or lock key already registered.
  absl::Status Add(Job job);
  // The registered names, sorted.
  std::vector<std::string> Names() const;
  // The job named `name`; InvalidArgument "name: unknown job \"x\" (known:
  // a, b, ...)" otherwise.
  absl::StatusOr<const Job*> Find(const std::string& name) const;
  // Runs the job once under its lock: its counts, or skipped with the
  // message "skipped: another replica holds the lock"; the job's own error
  // or the lock's (Unavailable) otherwise; InvalidArgument as Find.
  absl::StatusOr<JobResult> Run(const std::string& name) const;

  // Starts one thread per job with a positive interval: each runs the job
  // every interval (first run one interval after the start) and logs the
  // result. Call once.
  void StartPeriodic();
  // Stops the periodic threads, waiting for a run in progress. Idempotent.
  void Stop();

 private:
  class Periodic;
  JobLockFn lock_;
  std::map<std::string, Job> jobs_;
  std::vector<std::unique_ptr<Periodic>> periodic_;
};

// "name=value name2=value2" of a result's counts (logs and the CLI).
std::string FormatCounts(const JobResult& result);

}  // namespace sluice::server

#endif  // SLUICE_SERVER_JOBS_H_
