#include "server/jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "absl/time/clock.h"

namespace sluice::server {
namespace {

// A lock fake: key → held elsewhere.
struct FakeLock {
  std::set<int64_t> held_elsewhere;
  std::vector<int64_t> taken;
  JobLockFn Fn() {
    return [this](int64_t key, const std::function<void()>& body) -> absl::StatusOr<bool> {
      if (held_elsewhere.count(key) > 0) return false;
      taken.push_back(key);
      body();
      return true;
    };
  }
};

Job CountingJob(const std::string& name, int64_t key, int* runs) {
  Job job;
  job.name = name;
  job.lock_key = key;
  job.run = [runs]() -> absl::StatusOr<std::map<std::string, int64_t>> {
    ++*runs;
    return std::map<std::string, int64_t>{{"things_done", *runs}};
  };
  return job;
}

TEST(JobRunnerTest, RunsUnderItsLockAndReportsCounts) {
  FakeLock lock;
  JobRunner runner(lock.Fn());
  int runs = 0;
  ASSERT_TRUE(runner.Add(CountingJob("revoke_expired_grants", 7, &runs)).ok());
  auto result = runner.Run("revoke_expired_grants");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->skipped);
  EXPECT_EQ(result->counts.at("things_done"), 1);
  EXPECT_EQ(FormatCounts(*result), "things_done=1");
  EXPECT_EQ(lock.taken, std::vector<int64_t>{7});
}

TEST(JobRunnerTest, SkipsWhenAnotherReplicaHoldsTheLock) {
  FakeLock lock;
  lock.held_elsewhere.insert(7);
  JobRunner runner(lock.Fn());
  int runs = 0;
  ASSERT_TRUE(runner.Add(CountingJob("a", 7, &runs)).ok());
  auto result = runner.Run("a");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->skipped);
  EXPECT_EQ(result->message, "skipped: another replica holds the lock");
  EXPECT_TRUE(result->counts.empty());
  EXPECT_EQ(runs, 0);
}

TEST(JobRunnerTest, UnknownNameListsTheKnownOnes) {
  FakeLock lock;
  JobRunner runner(lock.Fn());
  int runs = 0;
  ASSERT_TRUE(runner.Add(CountingJob("fetch_resources", 1, &runs)).ok());
  ASSERT_TRUE(runner.Add(CountingJob("cleanup_queue", 2, &runs)).ok());
  auto result = runner.Run("nope");
  EXPECT_TRUE(absl::IsInvalidArgument(result.status()));
  EXPECT_EQ(result.status().message(),
            "name: unknown job \"nope\" (known: cleanup_queue, fetch_resources)");
  EXPECT_EQ(runner.Names(), (std::vector<std::string>{"cleanup_queue", "fetch_resources"}));
}

TEST(JobRunnerTest, RejectsDuplicatesAndIncompleteJobs) {
  FakeLock lock;
  JobRunner runner(lock.Fn());
  int runs = 0;
  ASSERT_TRUE(runner.Add(CountingJob("a", 1, &runs)).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(runner.Add(CountingJob("a", 2, &runs))));
  EXPECT_TRUE(absl::IsAlreadyExists(runner.Add(CountingJob("b", 1, &runs))));
  EXPECT_TRUE(absl::IsInvalidArgument(runner.Add(CountingJob("", 3, &runs))));
  Job no_run;
  no_run.name = "c";
  no_run.lock_key = 4;
  EXPECT_TRUE(absl::IsInvalidArgument(runner.Add(no_run)));
}

TEST(JobRunnerTest, PropagatesTheJobsAndTheLocksErrors) {
  JobRunner failing_lock([](int64_t, const std::function<void()>&) -> absl::StatusOr<bool> {
    return absl::UnavailableError("db down");
  });
  int runs = 0;
  ASSERT_TRUE(failing_lock.Add(CountingJob("a", 1, &runs)).ok());
  EXPECT_TRUE(absl::IsUnavailable(failing_lock.Run("a").status()));
  EXPECT_EQ(runs, 0);

  FakeLock lock;
  JobRunner runner(lock.Fn());
  Job bad;
  bad.name = "bad";
  bad.lock_key = 9;
  bad.run = []() -> absl::StatusOr<std::map<std::string, int64_t>> {
    return absl::FailedPreconditionError("broken");
  };
  ASSERT_TRUE(runner.Add(bad).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(runner.Run("bad").status()));
}

TEST(JobRunnerTest, PeriodicRunsRepeatAndStop) {
  FakeLock lock;
  JobRunner runner(lock.Fn());
  std::atomic<int> runs{0};
  Job job;
  job.name = "tick";
  job.lock_key = 1;
  job.interval = absl::Milliseconds(5);
  job.run = [&runs]() -> absl::StatusOr<std::map<std::string, int64_t>> {
    ++runs;
    return std::map<std::string, int64_t>{};
  };
  Job on_demand = job;
  on_demand.name = "manual";
  on_demand.lock_key = 2;
  on_demand.interval = absl::ZeroDuration();
  int manual_runs = 0;
  on_demand.run = [&manual_runs]() -> absl::StatusOr<std::map<std::string, int64_t>> {
    ++manual_runs;
    return std::map<std::string, int64_t>{};
  };
  ASSERT_TRUE(runner.Add(job).ok());
  ASSERT_TRUE(runner.Add(on_demand).ok());
  runner.StartPeriodic();
  absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (runs.load() < 3 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(2));
  runner.Stop();
  int after_stop = runs.load();
  EXPECT_GE(after_stop, 3);
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(runs.load(), after_stop);
  EXPECT_EQ(manual_runs, 0);
}

}  // namespace
}  // namespace sluice::server
