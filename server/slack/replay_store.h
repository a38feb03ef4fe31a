// Replay protection for Slack's signed requests (issue 44), shared by every
// replica through PostgreSQL (access migration 0016).
#ifndef SLUICE_SERVER_SLACK_REPLAY_STORE_H_
#define SLUICE_SERVER_SLACK_REPLAY_STORE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/db/pool.h"

namespace sluice::slack {

class PostgresReplayStore {
 public:
  explicit PostgresReplayStore(db::Pool* pool) : pool_(pool) {}
  // Records `signature` until `expires`, first dropping expired ones.
  // AlreadyExists when it is recorded and not expired (a replay); the
  // pool's errors otherwise.
  absl::Status Remember(const std::string& signature, absl::Time expires);

 private:
  db::Pool* pool_;
};

}  // namespace sluice::slack

#endif  // SLUICE_SERVER_SLACK_REPLAY_STORE_H_
