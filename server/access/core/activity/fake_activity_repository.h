// An in-memory ActivityRepository for core tests and the request fuzzer:
// upsert by (provider_id, provider_activity_id), Get, and List with every
// filter of ActivityFilter, newest first. resource_id is never matched.
#ifndef SLUICE_SERVER_ACCESS_CORE_ACTIVITY_FAKE_ACTIVITY_REPOSITORY_H_
#define SLUICE_SERVER_ACCESS_CORE_ACTIVITY_FAKE_ACTIVITY_REPOSITORY_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/access/core/activity/activity_service.h"

namespace sluice::access::testing {

class FakeActivityRepository : public ActivityRepository {
 public:
  absl::Status BulkUpsert(std::vector<pb::ProviderActivity>* activities) override {
    for (pb::ProviderActivity& a : *activities) {
      auto it = std::find_if(stored.begin(), stored.end(), [&](const pb::ProviderActivity& s) {
        return s.provider_id() == a.provider_id() &&
               s.provider_activity_id() == a.provider_activity_id();
      });
      if (it != stored.end()) {
        a.set_id(it->id());
        *it = a;
      } else {
        a.set_id(absl::StrCat("activity-", ++next_id));
        stored.push_back(a);
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<pb::ProviderActivity> Get(const std::string& id) override {
    for (const auto& a : stored) {
      if (a.id() == id) return a;
    }
    return absl::NotFoundError("activity not found");
  }
  absl::StatusOr<std::vector<pb::ProviderActivity>> List(const ActivityFilter& f) override {
    auto in = [](const std::vector<std::string>& want, const std::string& v) {
      return want.empty() || std::find(want.begin(), want.end(), v) != want.end();
    };
    std::vector<pb::ProviderActivity> out;
    for (auto it = stored.rbegin(); it != stored.rend(); ++it) {
      int64_t us = it->timestamp().seconds() * 1000000 + it->timestamp().nanos() / 1000;
      if (in(f.provider_ids, it->provider_id()) && in(f.account_ids, it->account_id()) &&
          in(f.resource_ids, it->resource_id()) && in(f.types, it->type()) &&
          (f.timestamp.start_micros == 0 || us >= f.timestamp.start_micros) &&
          (f.timestamp.end_micros == 0 || us <= f.timestamp.end_micros)) {
        out.push_back(*it);
      }
    }
    return out;
  }

  std::vector<pb::ProviderActivity> stored;  // in insertion order
  int next_id = 0;
};

}  // namespace sluice::access::testing

#endif  // SLUICE_SERVER_ACCESS_CORE_ACTIVITY_FAKE_ACTIVITY_REPOSITORY_H_
