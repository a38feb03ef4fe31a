#include "sink/source/offset_tracker.h"

namespace sluice::sink {

void OffsetTracker::MarkBatch(const std::vector<Message>& batch) {
  BeginBatch(batch);
  EndBatch();
}

void OffsetTracker::EndBatch() {
  for (auto& [tp, s] : state_) s.inflight_from = -1;
}

void OffsetTracker::BeginBatch(const std::vector<Message>& batch) {
  // Batches are mostly one or a few partitions in runs: cache the last state.
  State* last = nullptr;
  const Message* last_msg = nullptr;
  for (const Message& m : batch) {
    if (last == nullptr || last_msg->partition != m.partition || last_msg->topic != m.topic) {
      last = &state_[TopicPartition{m.topic, m.partition}];
      last_msg = &m;
    }
    if (m.offset + 1 > last->next) last->next = m.offset + 1;
    if (last->inflight_from < 0 || m.offset < last->inflight_from) last->inflight_from = m.offset;
  }
}

void OffsetTracker::MarkFailed(const std::vector<FailedMessage>& failed) {
  for (const FailedMessage& f : failed) {
    auto it = state_.find(TopicPartition{f.message.topic, f.message.partition});
    if (it == state_.end()) continue;  // revoked meanwhile: not ours to block
    State& s = it->second;
    if (s.blocked_at < 0 || f.message.offset < s.blocked_at) s.blocked_at = f.message.offset;
  }
}

std::vector<PartitionOffset> OffsetTracker::TakePending() {
  std::vector<PartitionOffset> out;
  for (auto& [tp, s] : state_) {
    int64_t off = CommitOffset(s);
    if (off >= 0 && (off > s.taken || s.retry)) {
      out.push_back({tp, off});
      s.taken = off;
      s.retry = false;
    }
  }
  return out;
}

void OffsetTracker::Retry(const std::vector<PartitionOffset>& failed) {
  for (const PartitionOffset& f : failed) {
    auto it = state_.find(f.tp);
    if (it != state_.end() && it->second.taken == f.offset) it->second.retry = true;
  }
}

std::vector<PartitionOffset> OffsetTracker::CommittableFor(
    const std::vector<TopicPartition>& partitions) const {
  std::vector<PartitionOffset> out;
  for (const TopicPartition& tp : partitions) {
    auto it = state_.find(tp);
    if (it == state_.end()) continue;
    int64_t off = CommitOffset(it->second);
    if (off >= 0) out.push_back({tp, off});
  }
  return out;
}

void OffsetTracker::Forget(const std::vector<TopicPartition>& partitions) {
  for (const TopicPartition& tp : partitions) state_.erase(tp);
}

int64_t OffsetTracker::Committed(const TopicPartition& tp) const {
  auto it = state_.find(tp);
  return it == state_.end() ? -1 : it->second.taken;
}

}  // namespace sluice::sink
