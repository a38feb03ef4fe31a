#include "sink/decorators/factory.h"

#include "absl/strings/str_cat.h"
#include "sink/decorators/instrumented.h"

namespace sluice::sink {
namespace {

class DecoratedDispatcher : public Dispatcher {
 public:
  DecoratedDispatcher(const ErrorConfig& errors, std::unique_ptr<Sink> chain,
                      RetryingSink* retry, DlqSink* dlq)
      : failing_(errors.failing), chain_(std::move(chain)), retry_(retry), dlq_(dlq) {}

  DispatchResult Dispatch(const std::vector<Message>& batch,
                          std::vector<FailedMessage> prefailed) override {
    DispatchResult r;
    if (!batch.empty()) r.failed = chain_->Push(batch);
    if (!prefailed.empty()) {
      if (dlq_ != nullptr) prefailed = dlq_->Route(std::move(prefailed));
      for (FailedMessage& f : prefailed) r.failed.push_back(std::move(f));
    }
    r.fatal = retry_->TakeFatal();
    if (dlq_ != nullptr && r.fatal.ok()) r.fatal = dlq_->TakeFatal();
    if (r.fatal.ok()) {
      for (const FailedMessage& f : r.failed) {
        if (failing_.count(f.error_type)) {
          r.fatal = absl::FailedPreconditionError(absl::StrCat(
              ErrorTypeName(f.error_type), " (in ERROR_TYPES_FOR_FAILING) for topic ",
              f.message.topic, " partition ", f.message.partition, " offset ", f.message.offset,
              ": ", f.error));
          break;
        }
      }
    }
    return r;
  }

 private:
  std::set<ErrorType> failing_;
  std::unique_ptr<Sink> chain_;
  RetryingSink* retry_;  // inside chain_
  DlqSink* dlq_;         // inside chain_, or null
};

}  // namespace

absl::StatusOr<std::unique_ptr<Dispatcher>> BuildDispatcher(const ErrorConfig& errors,
                                                            std::unique_ptr<Sink> sink,
                                                            Metrics* metrics,
                                                            DispatcherHooks hooks) {
  const std::set<ErrorType> failing = errors.failing;
  const std::set<ErrorType> retry_types = errors.retry;
  const bool dlq_enabled = errors.dlq_enable;
  Backoff backoff{errors.backoff_initial_ms, errors.backoff_rate, errors.backoff_max_ms};

  std::unique_ptr<Sink> chain =
      std::make_unique<LoggingSink>(std::make_unique<MeteredSink>(std::move(sink), metrics));
  RetryingSink::Options ro;
  ro.retryable = [=](ErrorType t) {
    return retry_types.count(t) > 0 || (!dlq_enabled && failing.count(t) == 0);
  };
  ro.max_attempts = errors.retry_max_attempts;
  ro.fail_after_max_attempts = errors.retry_fail_after_max_attempts;
  ro.backoff = backoff;
  auto retry = std::make_unique<RetryingSink>(std::move(chain), ro, metrics, hooks.sleep,
                                              hooks.stop, hooks.keep_alive);
  RetryingSink* retry_ptr = retry.get();
  chain = std::move(retry);

  DlqSink* dlq_ptr = nullptr;
  if (dlq_enabled) {
    std::unique_ptr<DlqWriter> writer = std::move(hooks.dlq_writer);
    if (writer == nullptr) {
      if (errors.dlq_writer == "KAFKA") {
        auto k = KafkaDlqWriter::Create(errors.dlq_kafka_brokers, errors.dlq_kafka_topic,
                                        errors.dlq_kafka_acks, errors.dlq_kafka_properties);
        if (!k.ok()) return k.status();
        writer = *std::move(k);
      } else {
        writer = std::make_unique<LogDlqWriter>();
      }
    }
    const std::set<ErrorType> dlq_types = errors.dlq;
    DlqSink::Options dopt;
    dopt.to_dlq = [=](ErrorType t) {
      return dlq_types.empty() ? failing.count(t) == 0 : dlq_types.count(t) > 0;
    };
    dopt.max_attempts = errors.dlq_retry_max_attempts;
    dopt.fail_after_max_attempts = errors.dlq_fail_after_max_attempts;
    dopt.backoff = backoff;
    auto dlq = std::make_unique<DlqSink>(std::move(chain), std::move(writer), dopt, metrics,
                                         hooks.sleep, hooks.stop, hooks.keep_alive);
    dlq_ptr = dlq.get();
    chain = std::move(dlq);
  }
  return std::unique_ptr<Dispatcher>(
      new DecoratedDispatcher(errors, std::move(chain), retry_ptr, dlq_ptr));
}

}  // namespace sluice::sink
