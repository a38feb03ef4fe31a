#include "integration/slack_fake/slack_fake_process.h"

namespace sluice::integration {

absl::StatusOr<std::unique_ptr<SlackFake>> SlackFake::Start() {
  std::unique_ptr<SlackFake> fake(new SlackFake());
  if (absl::Status st = fake->StartScript("integration/slack_fake/slack_fake.js"); !st.ok()) {
    return st;
  }
  return fake;
}

}  // namespace sluice::integration
