#include <deque>

#include <gtest/gtest.h>

#include "sink/decorators/dlq.h"
#include "sink/decorators/factory.h"
#include "sink/decorators/retry.h"
#include "absl/time/clock.h"
#include "sink/sinks/testing/recording_metrics.h"

namespace sluice::sink {
namespace {

Message Msg(int64_t o) {
  Message m;
  m.topic = "t";
  m.partition = 2;
  m.offset = o;
  m.value = "v" + std::to_string(o);
  return m;
}

// Fails every message of the first `fail_pushes` pushes with `type`.
class ScriptedSink : public Sink {
 public:
  ScriptedSink(int fail_pushes, ErrorType type) : fail_pushes_(fail_pushes), type_(type) {}
  std::vector<FailedMessage> Push(const std::vector<Message>& batch) override {
    sizes->push_back(static_cast<int>(batch.size()));
    std::vector<FailedMessage> out;
    if (fail_pushes_ < 0 || pushes_++ < fail_pushes_) {
      for (const Message& m : batch) out.push_back({m, type_, "boom"});
    }
    return out;
  }
  absl::string_view Name() const override { return "scripted"; }
  std::shared_ptr<std::vector<int>> sizes = std::make_shared<std::vector<int>>();

 private:
  int fail_pushes_;  // -1: always
  int pushes_ = 0;
  ErrorType type_;
};

class FakeWriter : public DlqWriter {
 public:
  explicit FakeWriter(int fail_writes) : fail_writes_(fail_writes) {}
  std::vector<FailedMessage> Write(const std::vector<FailedMessage>& messages) override {
    ++state->writes;
    if (fail_writes_ < 0 || state->writes <= fail_writes_) return messages;
    for (const auto& f : messages) state->written.push_back(f);
    return {};
  }
  struct State {
    int writes = 0;
    std::vector<FailedMessage> written;
  };
  std::shared_ptr<State> state = std::make_shared<State>();

 private:
  int fail_writes_;
};

struct Built {
  std::unique_ptr<Dispatcher> dispatcher;
  std::shared_ptr<std::vector<int>> sizes;
  std::shared_ptr<FakeWriter::State> dlq;
  std::shared_ptr<std::vector<absl::Duration>> sleeps = std::make_shared<std::vector<absl::Duration>>();
};

Built Build(const ErrorConfig& errors, int fail_pushes, ErrorType type, Metrics* metrics,
            int dlq_fail_writes = 0) {
  Built b;
  auto sink = std::make_unique<ScriptedSink>(fail_pushes, type);
  b.sizes = sink->sizes;
  DispatcherHooks hooks;
  auto sleeps = b.sleeps;
  hooks.sleep = [sleeps](absl::Duration d) { sleeps->push_back(d); };
  auto writer = std::make_unique<FakeWriter>(dlq_fail_writes);
  b.dlq = writer->state;
  hooks.dlq_writer = std::move(writer);
  auto d = BuildDispatcher(errors, std::move(sink), metrics, std::move(hooks));
  EXPECT_TRUE(d.ok()) << d.status();
  b.dispatcher = *std::move(d);
  return b;
}

TEST(Backoff, ExponentialAndCapped) {
  Backoff b{10, 2, 60};
  EXPECT_EQ(b.Delay(0), absl::Milliseconds(10));
  EXPECT_EQ(b.Delay(1), absl::Milliseconds(20));
  EXPECT_EQ(b.Delay(2), absl::Milliseconds(40));
  EXPECT_EQ(b.Delay(3), absl::Milliseconds(60));
  EXPECT_EQ(b.Delay(400), absl::Milliseconds(60));
}

TEST(Dispatcher, RetriesOnlyFailedMessagesWithBackoff) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;  // retry DEFAULT_ERROR, DLQ disabled
  Built b = Build(e, 2, ErrorType::kDefaultError, &metrics);
  DispatchResult r = b.dispatcher->Dispatch({Msg(0), Msg(1), Msg(2)}, {});
  EXPECT_TRUE(r.failed.empty());
  EXPECT_TRUE(r.fatal.ok());
  EXPECT_EQ(*b.sizes, (std::vector<int>{3, 3, 3}));
  EXPECT_EQ(*b.sleeps, (std::vector<absl::Duration>{absl::Milliseconds(10), absl::Milliseconds(20)}));
  EXPECT_EQ(metrics.Sum("firehose_retry_attempts_total"), 2);
  EXPECT_EQ(metrics.Sum("firehose_retry_messages_total", {"type", "SUCCESS"}), 3);
  EXPECT_EQ(metrics.Sum("firehose_sink_messages_total", {"type", "SUCCESS"}), 3);
  EXPECT_EQ(metrics.Sum("firehose_sink_messages_total", {"error_type", "DEFAULT_ERROR"}), 6);
}

TEST(Dispatcher, FirehoseMetricsOfAPushAndItsBackoff) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  Built b = Build(e, 1, ErrorType::kDefaultError, &metrics);
  std::vector<Message> batch = {Msg(0), Msg(1)};
  batch[0].consume_timestamp_ms = absl::ToUnixMillis(absl::Now()) - 5000;
  DispatchResult r = b.dispatcher->Dispatch(batch, {});
  EXPECT_TRUE(r.failed.empty());
  EXPECT_EQ(metrics.Observed("firehose_sink_push_batch_size_total"), (std::vector<double>{2, 2}));
  EXPECT_EQ(metrics.Observed("firehose_retry_backoff_sleep_milliseconds"),
            (std::vector<double>{10}));
  EXPECT_EQ(metrics.Sum("firehose_error_messages_total", {"error_type", "DEFAULT_ERROR"}), 2);
  std::vector<double> lifetime = metrics.Observed("firehose_pipeline_execution_lifetime_milliseconds");
  ASSERT_EQ(lifetime.size(), 2u) << "once per push (two pushes: the first attempt and one retry)";
  EXPECT_GE(lifetime[0], 5000) << "the push's oldest message";
  EXPECT_LT(lifetime[0], 60000);
}

TEST(Dispatcher, DecodeFailuresEnterAtTheTopAndAreNeverRetried) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.failing = {};
  e.retry = {ErrorType::kDeserializationError};
  Built b = Build(e, 0, ErrorType::kDefaultError, &metrics);
  DispatchResult r =
      b.dispatcher->Dispatch({Msg(1)}, {{Msg(0), ErrorType::kDeserializationError, "bad"}});
  EXPECT_TRUE(r.fatal.ok());
  ASSERT_EQ(r.ignored.size(), 1u) << "not retried, no DLQ: dropped as SinkFinal";
  EXPECT_EQ(r.ignored[0].message.offset, 0);
  EXPECT_EQ(*b.sizes, (std::vector<int>{1})) << "the undecodable record never reached the sink";
  EXPECT_TRUE(b.sleeps->empty());
}

TEST(Dispatcher, RetryExhaustionFailsWhenConfigured) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.retry_max_attempts = 3;
  e.retry_fail_after_max_attempts = true;
  Built b = Build(e, -1, ErrorType::kDefaultError, &metrics);
  DispatchResult r = b.dispatcher->Dispatch({Msg(7)}, {});
  EXPECT_EQ(b.sizes->size(), 4u) << "one push plus three retries";
  ASSERT_EQ(r.failed.size(), 1u);
  ASSERT_FALSE(r.fatal.ok());
  EXPECT_NE(r.fatal.message().find("t/2@7"), std::string::npos) << r.fatal;
  // Without fail-after, SinkWithRetry returns it (SinkWithRetry.java:60-64)
  // and SinkFinal ignores it (SinkFinal.java:29-31).
  e.retry_fail_after_max_attempts = false;
  Built c = Build(e, -1, ErrorType::kDefaultError, &metrics);
  r = c.dispatcher->Dispatch({Msg(7)}, {});
  EXPECT_TRUE(r.fatal.ok());
  EXPECT_TRUE(r.failed.empty());
  EXPECT_EQ(r.ignored.size(), 1u);
}

// firehose 857761c6 ErrorHandler.java:38-39 (retry only
// ERROR_TYPES_FOR_RETRY), SinkFinal.java:29-31 (the rest is ignored). Sluice
// used to retry every non-failing type while the DLQ was off.
TEST(Dispatcher, ATypeInNeitherListIsDroppedLoggedAndCounted) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;  // SINK_5XX_ERROR is not in ERROR_TYPES_FOR_RETRY
  Built b = Build(e, 4, ErrorType::kSink5xxError, &metrics);
  DispatchResult r = b.dispatcher->Dispatch({Msg(0), Msg(1)}, {});
  EXPECT_TRUE(r.fatal.ok());
  EXPECT_TRUE(r.failed.empty());
  ASSERT_EQ(r.ignored.size(), 2u);
  EXPECT_EQ(r.ignored[1].message.offset, 1);
  EXPECT_EQ(b.sizes->size(), 1u) << "not retried";
  EXPECT_EQ(metrics.Sum("firehose_global_messages_total", {"scope", "IGNORED"}), 2);
}

TEST(Dispatcher, DlqTakesFailuresAfterRetriesAndTheyCountAsHandled) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.dlq_enable = true;
  e.dlq = {ErrorType::kSink5xxError};
  Built b = Build(e, -1, ErrorType::kSink5xxError, &metrics);
  DispatchResult r = b.dispatcher->Dispatch({Msg(0), Msg(1)}, {});
  EXPECT_TRUE(r.fatal.ok());
  EXPECT_TRUE(r.failed.empty()) << "written to the DLQ: committable";
  EXPECT_EQ(b.sizes->size(), 1u) << "SINK_5XX_ERROR is not in ERROR_TYPES_FOR_RETRY";
  ASSERT_EQ(b.dlq->written.size(), 2u);
  EXPECT_EQ(b.dlq->written[0].error_type, ErrorType::kSink5xxError);
  EXPECT_EQ(metrics.Sum("firehose_dlq_messages_total", {"type", "SUCCESS"}), 2);
}

// goto Firehose's ERROR_TYPES_FOR_RETRY default (DEFAULT_ERROR,
// SINK_RETRYABLE_ERROR): a 429 is retried, not dead-lettered at once.
TEST(Dispatcher, ARetryableErrorIsRetriedByDefaultEvenWithTheDlqOn) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.dlq_enable = true;
  Built b = Build(e, 2, ErrorType::kSinkRetryableError, &metrics);
  DispatchResult r = b.dispatcher->Dispatch({Msg(0), Msg(1)}, {});
  EXPECT_TRUE(r.fatal.ok());
  EXPECT_TRUE(r.failed.empty());
  EXPECT_EQ(*b.sizes, (std::vector<int>{2, 2, 2})) << "two retries, then delivered";
  EXPECT_TRUE(b.dlq->written.empty()) << "nothing went to the DLQ";
}

TEST(Dispatcher, DlqTypesRestrictRouting) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.dlq_enable = true;
  e.dlq = {ErrorType::kSink4xxError};
  Built b = Build(e, -1, ErrorType::kSink5xxError, &metrics);
  DispatchResult r = b.dispatcher->Dispatch({Msg(0)}, {});
  EXPECT_EQ(r.ignored.size(), 1u);
  EXPECT_TRUE(b.dlq->written.empty());
}

// firehose 857761c6 ErrorConfig.java:13-16: ERROR_TYPES_FOR_DLQ defaults to
// "", and ErrorHandler.java:34-35 then dead-letters nothing. Sluice used to
// read the empty list as "every non-failing type".
TEST(Dispatcher, TheDefaultDlqTypesDeadLetterNothing) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.dlq_enable = true;
  Built b = Build(e, -1, ErrorType::kSink4xxError, &metrics);
  DispatchResult r = b.dispatcher->Dispatch({Msg(0)}, {});
  EXPECT_TRUE(r.fatal.ok());
  EXPECT_TRUE(b.dlq->written.empty());
  EXPECT_EQ(b.dlq->writes, 0);
  EXPECT_EQ(r.ignored.size(), 1u);
}

TEST(Dispatcher, DlqWriteRetriesThenFails) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.dlq_enable = true;
  e.dlq = {ErrorType::kSink5xxError};
  e.dlq_retry_max_attempts = 2;
  Built b = Build(e, -1, ErrorType::kSink5xxError, &metrics, /*dlq_fail_writes=*/1);
  DispatchResult r = b.dispatcher->Dispatch({Msg(0)}, {});
  EXPECT_TRUE(r.failed.empty());
  EXPECT_EQ(b.dlq->writes, 2);
  e.dlq_fail_after_max_attempts = true;
  Built c = Build(e, -1, ErrorType::kSink5xxError, &metrics, /*dlq_fail_writes=*/-1);
  r = c.dispatcher->Dispatch({Msg(3)}, {});
  EXPECT_EQ(c.dlq->writes, 3);
  ASSERT_EQ(r.failed.size(), 1u) << "never written: not committed";
  EXPECT_FALSE(r.fatal.ok());
  EXPECT_EQ(metrics.Sum("firehose_dlq_retry_attempts_total"), 1 + 2)
      << "Firehose's name: one retry for b, two for c";
}

// The DLQ's retries share the retry loop, so a stop request ends them too:
// SIGTERM never waits out RETRY_EXPONENTIAL_BACKOFF_MAX_MS.
TEST(Dispatcher, AStopRequestEndsDlqRetriesWithoutWaitingOutTheBackoff) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.dlq_enable = true;
  e.dlq = {ErrorType::kSink4xxError};
  e.backoff_initial_ms = 60000;
  e.backoff_max_ms = 60000;
  bool stop = false;
  DispatcherHooks hooks;  // the real sleeper
  hooks.stop = [&] { return stop; };
  hooks.keep_alive = [&] { stop = true; };  // the signal arrives during the first backoff
  auto writer = std::make_unique<FakeWriter>(-1);
  auto state = writer->state;
  hooks.dlq_writer = std::move(writer);
  auto d = BuildDispatcher(e, std::make_unique<ScriptedSink>(-1, ErrorType::kSink4xxError),
                           &metrics, std::move(hooks));
  ASSERT_TRUE(d.ok());
  const absl::Time start = absl::Now();
  DispatchResult r = (*d)->Dispatch({Msg(0)}, {});
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(state->writes, 1) << "no attempt after the stop request";
  EXPECT_EQ(r.failed.size(), 1u) << "not written: stays uncommitted";
}

TEST(Dispatcher, FailingTypeStopsNamingTopicPartitionOffset) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.dlq_enable = true;  // DLQ on, but DESERIALIZATION_ERROR is a failing type
  Built b = Build(e, 0, ErrorType::kDefaultError, &metrics);
  std::vector<FailedMessage> pre = {{Msg(9), ErrorType::kDeserializationError, "bad bytes"}};
  DispatchResult r = b.dispatcher->Dispatch({Msg(8)}, std::move(pre));
  ASSERT_FALSE(r.fatal.ok());
  EXPECT_NE(r.fatal.message().find("topic t partition 2 offset 9"), std::string::npos) << r.fatal;
  EXPECT_NE(r.fatal.message().find("DESERIALIZATION_ERROR"), std::string::npos);
  ASSERT_EQ(r.failed.size(), 1u);
  EXPECT_TRUE(b.dlq->written.empty());
  // Routed to the DLQ when the operator says so.
  e.failing = {};
  e.dlq = {ErrorType::kDeserializationError};
  Built c = Build(e, 0, ErrorType::kDefaultError, &metrics);
  r = c.dispatcher->Dispatch({}, {{Msg(9), ErrorType::kDeserializationError, "bad bytes"}});
  EXPECT_TRUE(r.fatal.ok());
  EXPECT_TRUE(r.failed.empty());
  EXPECT_EQ(c.dlq->written.size(), 1u);
}

// Fails the pushes with the types of `script` in turn (one type per push,
// every message of it), then succeeds.
class SequenceSink : public Sink {
 public:
  explicit SequenceSink(std::vector<ErrorType> script) : script_(std::move(script)) {}
  std::vector<FailedMessage> Push(const std::vector<Message>& batch) override {
    ++*pushes;
    std::vector<FailedMessage> out;
    if (next_ < script_.size()) {
      for (const Message& m : batch) out.push_back({m, script_[next_], "boom"});
      ++next_;
    }
    return out;
  }
  absl::string_view Name() const override { return "sequence"; }
  std::shared_ptr<int> pushes = std::make_shared<int>(0);

 private:
  std::vector<ErrorType> script_;
  size_t next_ = 0;
};

// firehose 857761c6 FirehoseConsumerFactory.java:167-168: SinkWithFailHandler
// is inside SinkWithRetry, so a failing type throws on the push that
// returned it (SinkWithFailHandler.java:35-38), even when the operator also
// lists the type for retry and the DLQ. Sluice used to check it last.
TEST(Dispatcher, AFailingTypeStopsBeforeAnyRetryOrDeadLetter) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.retry = {ErrorType::kDefaultError, ErrorType::kInvalidMessageError};
  e.dlq_enable = true;
  e.dlq = {ErrorType::kInvalidMessageError};
  auto sink = std::make_unique<SequenceSink>(
      std::vector<ErrorType>{ErrorType::kInvalidMessageError});
  auto pushes = sink->pushes;
  auto writer = std::make_unique<FakeWriter>(0);
  auto dlq = writer->state;
  DispatcherHooks hooks;
  hooks.sleep = [](absl::Duration) {};
  hooks.dlq_writer = std::move(writer);
  auto d = BuildDispatcher(e, std::move(sink), &metrics, std::move(hooks));
  ASSERT_TRUE(d.ok());
  DispatchResult r = (*d)->Dispatch({Msg(4), Msg(5)}, {});
  ASSERT_FALSE(r.fatal.ok());
  EXPECT_NE(r.fatal.message().find("INVALID_MESSAGE_ERROR"), std::string::npos) << r.fatal;
  EXPECT_NE(r.fatal.message().find("topic t partition 2 offset 4"), std::string::npos);
  EXPECT_EQ(*pushes, 1) << "no retry";
  EXPECT_EQ(dlq->writes, 0) << "no dead letter";
  EXPECT_EQ(r.failed.size(), 2u) << "kept failed: not committed";
}

// The check runs after every retry push too: a record that first fails with
// DEFAULT_ERROR (retried) and then with UNKNOWN_FIELDS_ERROR stops the worker.
TEST(Dispatcher, AFailingTypeOnARetryStopsTheRetries) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  auto sink = std::make_unique<SequenceSink>(std::vector<ErrorType>{
      ErrorType::kDefaultError, ErrorType::kUnknownFieldsError, ErrorType::kDefaultError});
  auto pushes = sink->pushes;
  DispatcherHooks hooks;
  hooks.sleep = [](absl::Duration) {};
  auto d = BuildDispatcher(e, std::move(sink), &metrics, std::move(hooks));
  ASSERT_TRUE(d.ok());
  DispatchResult r = (*d)->Dispatch({Msg(6)}, {});
  ASSERT_FALSE(r.fatal.ok());
  EXPECT_NE(r.fatal.message().find("UNKNOWN_FIELDS_ERROR"), std::string::npos) << r.fatal;
  EXPECT_EQ(*pushes, 2);
  ASSERT_EQ(r.failed.size(), 1u);
  EXPECT_TRUE(r.ignored.empty());
}

// A stop request during the retries leaves the failures failed (never
// dropped): they stay uncommitted and are redelivered.
TEST(Dispatcher, AStopDuringRetriesNeverDrops) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.backoff_initial_ms = 60000;
  e.backoff_max_ms = 60000;
  bool stop = false;
  DispatcherHooks hooks;
  hooks.stop = [&] { return stop; };
  hooks.keep_alive = [&] { stop = true; };
  auto d = BuildDispatcher(e, std::make_unique<ScriptedSink>(-1, ErrorType::kDefaultError),
                           &metrics, std::move(hooks));
  ASSERT_TRUE(d.ok());
  DispatchResult r = (*d)->Dispatch({Msg(0)}, {});
  EXPECT_EQ(r.failed.size(), 1u);
  EXPECT_TRUE(r.ignored.empty());
  EXPECT_EQ(metrics.Sum("firehose_global_messages_total", {"scope", "IGNORED"}), 0);
}

// Review L7: unlimited retries with the DLQ off used to sleep without
// polling the consumer, so max.poll.interval.ms expired and the group
// evicted the member.
TEST(KeepAlive, RetriesKeepTheConsumerPolledDuringEveryBackoff) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;  // DLQ off, RETRY_MAX_ATTEMPTS unlimited: retried until success
  e.backoff_initial_ms = 1000;
  e.backoff_rate = 1;
  e.backoff_max_ms = 1000;
  auto sink = std::make_unique<ScriptedSink>(2, ErrorType::kDefaultError);
  int keep_alives = 0;
  std::vector<absl::Time> at;
  DispatcherHooks hooks;  // the real (sliced) sleeper
  hooks.keep_alive = [&] {
    ++keep_alives;
    at.push_back(absl::Now());
  };
  auto d = BuildDispatcher(e, std::move(sink), &metrics, std::move(hooks));
  ASSERT_TRUE(d.ok());
  absl::Time start = absl::Now();
  DispatchResult r = (*d)->Dispatch({Msg(0)}, {});
  EXPECT_TRUE(r.failed.empty());
  // Two backoffs of 1 s each, served in 100 ms slices, plus one per attempt.
  EXPECT_GE(keep_alives, 2 * 8);
  absl::Time prev = start;
  for (absl::Time t : at) {
    EXPECT_LT(t - prev, absl::Milliseconds(500)) << "the consumer went unpolled too long";
    prev = t;
  }
}

TEST(KeepAlive, BackoffSleepPollsInSlicesAndStopsEarly) {
  int calls = 0;
  BackoffSleep(absl::Milliseconds(550), nullptr, [&] { ++calls; });
  EXPECT_GE(calls, 5);
  calls = 0;
  absl::Time start = absl::Now();
  BackoffSleep(absl::Seconds(30), [&] { return calls >= 2; }, [&] { ++calls; });
  EXPECT_LT(absl::Now() - start, absl::Seconds(2)) << "a stop request ends the backoff";
}

TEST(KeepAlive, DlqRetriesKeepTheConsumerPolledToo) {
  testing::RecordingMetrics metrics;
  ErrorConfig e;
  e.dlq_enable = true;
  e.dlq = {ErrorType::kSink4xxError};
  e.backoff_initial_ms = 300;
  e.backoff_rate = 1;
  auto writer = std::make_unique<FakeWriter>(2);
  DispatcherHooks hooks;
  int keep_alives = 0;
  hooks.keep_alive = [&] { ++keep_alives; };
  hooks.dlq_writer = std::move(writer);
  auto d = BuildDispatcher(e, std::make_unique<ScriptedSink>(-1, ErrorType::kSink4xxError), &metrics,
                           std::move(hooks));
  ASSERT_TRUE(d.ok());
  DispatchResult r = (*d)->Dispatch({Msg(0)}, {});
  EXPECT_TRUE(r.failed.empty());
  EXPECT_GE(keep_alives, 4);
}

}  // namespace
}  // namespace sluice::sink
