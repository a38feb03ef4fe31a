// Label matching rules shared by selectors and subscriptions, and the name
// rules of the API.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_LABELS_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_LABELS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "server/notification/core/model.h"

namespace sluice::notification {

// True when every key/value of `subset` is in `labels` (an empty subset is
// contained in anything).
bool LabelsContain(const Labels& labels, const Labels& subset);

// A receiver's labels as selectors see them: its own plus id=<id> and type=<type>.
Labels EffectiveLabels(const Receiver& r);

// Parses POST /notifications selectors: objects whose values are strings, or
// an integer for `id`. InvalidArgument naming the selector index and key.
absl::StatusOr<std::vector<Labels>> ParseSelectors(const std::vector<nlohmann::json>& selectors);

// True when `s` is non-empty and every character is in [A-Za-z0-9] or `extra`.
bool ValidName(absl::string_view s, absl::string_view extra);

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_LABELS_H_
