#include "server/fuzz/write_routes.h"

#include <google/protobuf/descriptor_database.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/api/annotations.pb.h"
// Linked for their descriptors: the APIs whose write routes are fuzzed.
#include "proto/sluice/access/v1beta1/access.pb.h"
#include "proto/sluice/access/v1beta1/appeal.pb.h"
#include "proto/sluice/notification/v1beta1/notification.pb.h"

namespace sluice::fuzz {
namespace {

using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptor;

void AddBinding(const google::api::HttpRule& rule, const google::protobuf::MethodDescriptor* m,
                std::vector<WriteRoute>* out) {
  std::string verb, path;
  switch (rule.pattern_case()) {
    case google::api::HttpRule::kPost: verb = "POST", path = rule.post(); break;
    case google::api::HttpRule::kPut: verb = "PUT", path = rule.put(); break;
    case google::api::HttpRule::kDelete: verb = "DELETE", path = rule.delete_(); break;
    case google::api::HttpRule::kPatch: verb = "PATCH", path = rule.patch(); break;
    case google::api::HttpRule::kCustom:
      verb = rule.custom().kind(), path = rule.custom().path();
      break;
    default: break;  // GET or no pattern: not a write
  }
  if (!verb.empty()) {
    out->push_back(WriteRoute{absl::StrCat(verb, " ", path), rule.body(),
                              absl::StrCat("/", m->service()->full_name(), "/", m->name()), m});
  }
  for (const auto& extra : rule.additional_bindings()) AddBinding(extra, m, out);
}

std::vector<WriteRoute> Collect() {
  // Touch one message of each API so that its files are in the generated pool.
  (void)access::v1beta1::CreateAppealRequest::descriptor();
  (void)access::v1beta1::Policy::descriptor();
  (void)notification::v1beta1::CreateReceiverRequest::descriptor();
  std::vector<std::string> names;
  DescriptorPool::internal_generated_database()->FindAllFileNames(&names);
  std::vector<WriteRoute> routes;
  for (const std::string& name : names) {
    const FileDescriptor* file = DescriptorPool::generated_pool()->FindFileByName(name);
    if (file == nullptr) continue;
    if (!absl::StartsWith(file->package(), "sluice.access.") &&
        !absl::StartsWith(file->package(), "sluice.notification.")) {
      continue;
    }
    for (int s = 0; s < file->service_count(); ++s) {
      for (int i = 0; i < file->service(s)->method_count(); ++i) {
        const auto* m = file->service(s)->method(i);
        if (m->options().HasExtension(google::api::http)) {
          AddBinding(m->options().GetExtension(google::api::http), m, &routes);
        }
      }
    }
  }
  std::sort(routes.begin(), routes.end(),
            [](const WriteRoute& a, const WriteRoute& b) { return a.key < b.key; });
  return routes;
}

}  // namespace

const std::vector<WriteRoute>& WriteRoutes() {
  static const auto* routes = new std::vector<WriteRoute>(Collect());
  return *routes;
}

}  // namespace sluice::fuzz
