#include "common/trace/batch_processor.h"

#include <algorithm>
#include <utility>

namespace sluice::trace {

BatchProcessor::BatchProcessor(std::unique_ptr<SpanExporter> exporter, BatchOptions options,
                               prometheus::Counter* dropped)
    : exporter_(std::move(exporter)), options_(options), dropped_counter_(dropped) {
  thread_ = std::thread([this] { Run(); });
}

BatchProcessor::~BatchProcessor() { Shutdown(); }

void BatchProcessor::OnEnd(SpanData span) {
  bool dropped = false;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ || queue_.size() >= options_.max_queue_size) {
      ++stats_.dropped;
      dropped = true;
    } else {
      queue_.push_back(std::move(span));
      ++stats_.queued;
    }
  }
  if (dropped && dropped_counter_ != nullptr) dropped_counter_->Increment();
}

void BatchProcessor::Run() {
  while (true) {
    std::vector<SpanData> batch;
    bool stop;
    {
      absl::MutexLock lock(&mu_);
      // Wake at the schedule delay, or early once a full batch waits.
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || queue_.size() >= options_.max_export_batch_size;
      };
      mu_.AwaitWithTimeout(absl::Condition(&ready), options_.schedule_delay);
      stop = stopping_;
      size_t n = std::min(queue_.size(), options_.max_export_batch_size);
      batch.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    absl::Status st;
    if (!batch.empty()) {
      st = exporter_->Export(batch, options_.export_timeout);
      absl::MutexLock lock(&mu_);
      (st.ok() ? stats_.exported : stats_.failed) += batch.size();
    }
    if (stop) {
      absl::MutexLock lock(&mu_);
      // Flush the rest batch by batch, but give up at the first failure: a
      // collector that is down must not hold the process's exit for one
      // export timeout per batch.
      if (!st.ok()) {
        stats_.failed += queue_.size();
        queue_.clear();
      }
      if (queue_.empty()) return;
    }
  }
}

void BatchProcessor::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

BatchStats BatchProcessor::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

size_t BatchProcessor::queue_size() const {
  absl::MutexLock lock(&mu_);
  return queue_.size();
}

}  // namespace sluice::trace
