#include "server/slack/replay_store.h"

#include <soci/soci.h>

#include "absl/time/clock.h"

namespace sluice::slack {

absl::Status PostgresReplayStore::Remember(const std::string& signature, absl::Time expires) {
  const long long expires_us = absl::ToUnixMicros(expires);
  const long long now_us = absl::ToUnixMicros(absl::Now());
  return pool_->Run([&](soci::session& sql) -> absl::Status {
    sql << "DELETE FROM slack_interaction_signatures WHERE expires_at < to_timestamp(:n / 1e6)",
        soci::use(now_us);
    soci::statement st =
        (sql.prepare << "INSERT INTO slack_interaction_signatures (signature, expires_at) "
                        "VALUES (:s, to_timestamp(:e / 1e6)) ON CONFLICT (signature) DO NOTHING",
         soci::use(signature), soci::use(expires_us));
    st.execute(true);
    if (st.get_affected_rows() == 0) {
      return absl::AlreadyExistsError("this Slack request signature was received before");
    }
    return absl::OkStatus();
  });
}

}  // namespace sluice::slack
