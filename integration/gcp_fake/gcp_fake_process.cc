#include "integration/gcp_fake/gcp_fake_process.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace sluice::integration {

absl::StatusOr<std::unique_ptr<GcpFake>> GcpFake::Start() {
  std::unique_ptr<GcpFake> fake(new GcpFake());
  if (absl::Status st = fake->StartScript("integration/gcp_fake/gcp_fake.js"); !st.ok()) return st;
  return fake;
}

nlohmann::json GcpFake::NewKey(const std::string& project_id) {
  return Control("POST", "/_fake/service_accounts", {{"project_id", project_id}});
}

std::string GcpFake::NewKeyBase64(const std::string& project_id) {
  return absl::Base64Escape(NewKey(project_id).dump());
}

nlohmann::json GcpFake::Credentials(const std::string& resource_name, int timeout_ms) {
  std::string project = resource_name.substr(resource_name.find('/') + 1);
  return {{"service_account_key", NewKeyBase64(project)},
          {"resource_name", resource_name},
          {"api_base_url", base_url()},
          {"request_timeout_ms", timeout_ms}};
}

}  // namespace sluice::integration
