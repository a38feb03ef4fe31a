#include "sink/source/offset_tracker.h"

#include <gtest/gtest.h>

namespace sluice::sink {
namespace {

Message Msg(int32_t p, int64_t o) {
  Message m;
  m.topic = "t";
  m.partition = p;
  m.offset = o;
  return m;
}

TEST(OffsetTracker, CommitsNextOffsetPerPartition) {
  OffsetTracker t;
  t.MarkBatch({Msg(0, 5), Msg(0, 6), Msg(1, 9), Msg(0, 7)});
  auto pending = t.TakePending();
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].tp.partition, 0);
  EXPECT_EQ(pending[0].offset, 8);
  EXPECT_EQ(pending[1].offset, 10);
  EXPECT_TRUE(t.TakePending().empty()) << "nothing new since the last take";
  EXPECT_EQ(t.Committed({"t", 0}), 8);
}

TEST(OffsetTracker, RetryHandsARefusedCommitBackOnce) {
  OffsetTracker t;
  t.MarkBatch({Msg(0, 5), Msg(1, 9)});
  auto first = t.TakePending();
  ASSERT_EQ(first.size(), 2u);
  // The broker refused the commit of partition 0 (a rebalance): the next
  // take sends it again, and only once.
  t.Retry({first[0]});
  auto again = t.TakePending();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].tp.partition, 0);
  EXPECT_EQ(again[0].offset, 6);
  EXPECT_TRUE(t.TakePending().empty());
  // A refusal of an offset already superseded changes nothing; one of an
  // untracked partition is ignored.
  t.MarkBatch({Msg(0, 6)});
  auto later = t.TakePending();
  ASSERT_EQ(later.size(), 1u);
  t.Retry({{{"t", 0}, 6}, {{"t", 7}, 3}});
  EXPECT_TRUE(t.TakePending().empty());
}

TEST(OffsetTracker, FailedMessageBlocksItsPartitionOnly) {
  OffsetTracker t;
  t.MarkBatch({Msg(0, 5), Msg(0, 6), Msg(0, 7), Msg(1, 1)});
  FailedMessage f;
  f.message = Msg(0, 6);
  t.MarkFailed({f});
  auto pending = t.TakePending();
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].offset, 6) << "offset 6 failed: commit stops below it";
  EXPECT_EQ(pending[1].offset, 2);
  // Later batches do not move the blocked partition past the failure.
  t.MarkBatch({Msg(0, 8), Msg(1, 2)});
  pending = t.TakePending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].tp.partition, 1);
  EXPECT_EQ(pending[0].offset, 3);
}

TEST(OffsetTracker, RevokeCommitsAndForgets) {
  OffsetTracker t;
  t.MarkBatch({Msg(0, 1), Msg(1, 4)});
  auto c = t.CommittableFor({{"t", 1}, {"t", 7}});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].offset, 5);
  t.Forget({{"t", 1}});
  auto pending = t.TakePending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].tp.partition, 0);
}

TEST(OffsetTracker, NothingOfTheBatchInHandIsCommittable) {
  OffsetTracker t;
  t.MarkBatch({Msg(0, 0), Msg(0, 1)});
  t.TakePending();
  t.BeginBatch({Msg(0, 2), Msg(0, 3), Msg(1, 7)});
  // A revoke (or an error escaping the batch) now may only commit what was
  // done before the batch.
  auto c = t.CommittableFor({{"t", 0}, {"t", 1}});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].offset, 2);
  EXPECT_EQ(c[1].offset, 7);
  for (const PartitionOffset& o : t.TakePending()) {
    EXPECT_EQ(o.offset, o.tp.partition == 0 ? 2 : 7) << "never past the batch start";
  }
  t.EndBatch();
  auto pending = t.TakePending();
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].offset, 4);
  EXPECT_EQ(pending[1].offset, 8);
}

TEST(OffsetTracker, FailuresOfAPartitionRevokedDuringTheBatchAreIgnored) {
  OffsetTracker t;
  t.BeginBatch({Msg(0, 5), Msg(0, 6)});
  t.Forget({{"t", 0}});  // revoked while the batch was in hand
  FailedMessage f;
  f.message = Msg(0, 5);
  t.MarkFailed({f});
  t.EndBatch();
  EXPECT_TRUE(t.TakePending().empty());
  // Assigned again later: the old failure does not block it.
  t.MarkBatch({Msg(0, 5), Msg(0, 6)});
  auto pending = t.TakePending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].offset, 7);
}

}  // namespace
}  // namespace sluice::sink
