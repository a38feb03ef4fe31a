#include "integration/lark_fake/lark_fake_process.h"

namespace sluice::integration {

absl::StatusOr<std::unique_ptr<LarkFake>> LarkFake::Start() {
  std::unique_ptr<LarkFake> fake(new LarkFake());
  if (absl::Status st = fake->StartScript("integration/lark_fake/lark_fake.js"); !st.ok()) {
    return st;
  }
  return fake;
}

}  // namespace sluice::integration
