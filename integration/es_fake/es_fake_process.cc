#include "integration/es_fake/es_fake_process.h"

namespace sluice::integration {

absl::StatusOr<std::unique_ptr<EsFake>> EsFake::Start() {
  std::unique_ptr<EsFake> fake(new EsFake());
  if (absl::Status st = fake->StartScript("integration/es_fake/es_fake.js"); !st.ok()) return st;
  return fake;
}

}  // namespace sluice::integration
