#include "server/jobs.h"

#include "absl/strings/str_cat.h"
#include "common/trace/span.h"
#include "absl/strings/str_join.h"
#include "spdlog/spdlog.h"

namespace sluice::server {

// Runs `fn` every `interval` on its own thread until Stop() (moved here from
// the access module, which ran its three jobs this way).
class JobRunner::Periodic {
 public:
  Periodic(absl::Duration interval, std::function<void()> fn)
      : interval_(interval), fn_(std::move(fn)) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~Periodic() { Stop(); }
  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop() {
    absl::MutexLock lock(&mu_);
    while (!stopping_) {
      if (mu_.AwaitWithTimeout(absl::Condition(&stopping_), interval_)) break;
      mu_.Unlock();
      try {
        fn_();
      } catch (const std::exception& e) {
        spdlog::error("msg=\"job threw\" error=\"{}\"", e.what());
      }
      mu_.Lock();
    }
  }
  absl::Duration interval_;
  std::function<void()> fn_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

JobRunner::JobRunner(JobLockFn lock) : lock_(std::move(lock)) {}

JobRunner::~JobRunner() { Stop(); }

absl::Status JobRunner::Add(Job job) {
  if (job.name.empty()) return absl::InvalidArgumentError("job: name is empty");
  if (!job.run) return absl::InvalidArgumentError(absl::StrCat("job ", job.name, ": no run"));
  if (jobs_.count(job.name) > 0) {
    return absl::AlreadyExistsError(absl::StrCat("job ", job.name, ": registered twice"));
  }
  for (const auto& [name, other] : jobs_) {
    if (other.lock_key == job.lock_key) {
      return absl::AlreadyExistsError(
          absl::StrCat("job ", job.name, ": lock key already used by ", name));
    }
  }
  std::string name = job.name;
  jobs_.emplace(std::move(name), std::move(job));
  return absl::OkStatus();
}

std::vector<std::string> JobRunner::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, job] : jobs_) out.push_back(name);
  return out;
}

absl::StatusOr<const Job*> JobRunner::Find(const std::string& name) const {
  auto it = jobs_.find(name);
  if (it != jobs_.end()) return &it->second;
  return absl::InvalidArgumentError(absl::StrCat("name: unknown job \"", name, "\" (known: ",
                                                 absl::StrJoin(Names(), ", "), ")"));
}

absl::StatusOr<JobResult> JobRunner::Run(const std::string& name) const {
  auto job = Find(name);
  if (!job.ok()) return job.status();
  absl::StatusOr<std::map<std::string, int64_t>> counts =
      absl::UnknownError("job body did not run");
  auto ran = lock_((*job)->lock_key, [&] {
    // The run is a span: a child of the RunJob call that asked for it, or a
    // trace of its own when periodic, so that its provider calls, audit rows
    // and log lines share one trace id.
    trace::ScopedSpan span(absl::StrCat("job ", name), trace::SpanKind::kInternal,
                           trace::Current());
    counts = (*job)->run();
  });
  if (!ran.ok()) return ran.status();
  JobResult result;
  if (!*ran) {
    result.skipped = true;
    result.message = "skipped: another replica holds the lock";
    return result;
  }
  if (!counts.ok()) return counts.status();
  result.counts = std::move(*counts);
  result.message = "done";
  return result;
}

void JobRunner::StartPeriodic() {
  for (const auto& [name, job] : jobs_) {
    if (job.interval <= absl::ZeroDuration()) continue;
    std::string job_name = name;
    periodic_.push_back(std::make_unique<Periodic>(job.interval, [this, job_name] {
      auto result = Run(job_name);
      if (!result.ok()) {
        spdlog::warn("msg=\"job failed\" job={} error=\"{}\"", job_name,
                     std::string(result.status().message()));
      } else if (result->skipped) {
        spdlog::info("msg=\"job skipped: another replica holds the lock\" job={}", job_name);
      } else {
        spdlog::info("msg=\"job done\" job={} {}", job_name, FormatCounts(*result));
      }
    }));
  }
}

void JobRunner::Stop() {
  for (auto& p : periodic_) p->Stop();
  periodic_.clear();
}

std::string FormatCounts(const JobResult& result) {
  return absl::StrJoin(result.counts, " ", absl::PairFormatter("="));
}

}  // namespace sluice::server
