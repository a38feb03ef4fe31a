// Sluice's gotocompany.* protos against goto/proton's own (issue #41): every
// message, enum and rpc that Guardian's and Siren's gRPC clients know must be
// here with the same name, field numbers, types and labels, and nothing may
// be added under upstream's package names. The upstream side is the wire
// facts of proton 0d8cde8 (integration/testdata/proton/wire.txtpb, made by
// tools/proton_facts.py); Sluice's side is the generated descriptors that
// sluice-server serves.
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "proto/sluice/guardian/v1beta1/guardian.pb.h"
#include "proto/sluice/siren/v1/siren.pb.h"
#include "proto/sluice/siren/v1beta1/siren.pb.h"

namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;
using google::protobuf::FileDescriptorSet;
using google::protobuf::ServiceDescriptor;

const DescriptorPool& Ours() { return *DescriptorPool::generated_pool(); }

// Field facts that the wire and JSON depend on.
std::string Facts(const FieldDescriptor& f) {
  std::string type = f.message_type() ? f.message_type()->full_name()
                     : f.enum_type()  ? f.enum_type()->full_name()
                                      : f.type_name();
  return absl::StrCat(f.number(), " ", f.is_repeated() ? "repeated " : "",
                      f.has_optional_keyword() ? "optional " : "", type, " json=", f.json_name());
}

void CompareEnum(const EnumDescriptor& up, std::vector<std::string>* diffs) {
  const EnumDescriptor* ours = Ours().FindEnumTypeByName(up.full_name());
  if (ours == nullptr) {
    diffs->push_back("missing enum " + up.full_name());
    return;
  }
  for (int i = 0; i < up.value_count(); ++i) {
    const auto* v = ours->FindValueByName(up.value(i)->name());
    if (v == nullptr || v->number() != up.value(i)->number()) {
      diffs->push_back(absl::StrCat("enum value ", up.value(i)->full_name(), " = ",
                                    up.value(i)->number(), " differs or is missing"));
    }
  }
  if (ours->value_count() != up.value_count()) {
    diffs->push_back(absl::StrCat("enum ", up.full_name(), " has ", ours->value_count(),
                                  " values here, ", up.value_count(), " upstream"));
  }
}

void CompareMessage(const Descriptor& up, std::vector<std::string>* diffs) {
  const Descriptor* ours = Ours().FindMessageTypeByName(up.full_name());
  if (ours == nullptr) {
    diffs->push_back("missing message " + up.full_name());
    return;
  }
  for (int i = 0; i < up.field_count(); ++i) {
    const FieldDescriptor& f = *up.field(i);
    const FieldDescriptor* o = ours->FindFieldByName(f.name());
    if (o == nullptr) {
      diffs->push_back(absl::StrCat("missing field ", f.full_name(), " (", Facts(f), ")"));
    } else if (Facts(*o) != Facts(f)) {
      diffs->push_back(absl::StrCat("field ", f.full_name(), ": upstream ", Facts(f), ", here ",
                                    Facts(*o)));
    }
  }
  for (int i = 0; i < ours->field_count(); ++i) {
    if (up.FindFieldByName(ours->field(i)->name()) == nullptr) {
      diffs->push_back("field only here: " + ours->field(i)->full_name());
    }
  }
  for (int i = 0; i < up.nested_type_count(); ++i) CompareMessage(*up.nested_type(i), diffs);
  for (int i = 0; i < up.enum_type_count(); ++i) CompareEnum(*up.enum_type(i), diffs);
}

void CompareService(const ServiceDescriptor& up, std::vector<std::string>* diffs) {
  const ServiceDescriptor* ours = Ours().FindServiceByName(up.full_name());
  if (ours == nullptr) {
    diffs->push_back("missing service " + up.full_name());
    return;
  }
  for (int i = 0; i < up.method_count(); ++i) {
    const auto& m = *up.method(i);
    const auto* o = ours->FindMethodByName(m.name());
    if (o == nullptr) {
      diffs->push_back("missing rpc " + m.full_name());
    } else if (o->input_type()->full_name() != m.input_type()->full_name() ||
               o->output_type()->full_name() != m.output_type()->full_name() ||
               o->client_streaming() || o->server_streaming()) {
      diffs->push_back("rpc " + m.full_name() + " has other message types here");
    }
  }
  if (ours->method_count() != up.method_count()) {
    diffs->push_back(absl::StrCat(up.full_name(), ": ", ours->method_count(), " rpcs here, ",
                                  up.method_count(), " upstream"));
  }
}

// Every message and enum that Sluice declares in `package`.
std::set<std::string> OurNames(const std::string& package) {
  std::set<std::string> names;
  std::vector<const FileDescriptor*> files;
  for (const auto* d : {gotocompany::guardian::v1beta1::GetAppealRequest::descriptor(),
                        gotocompany::siren::v1beta1::GetReceiverRequest::descriptor(),
                        gotocompany::siren::v1::ListSubscriptionsRequest::descriptor()}) {
    files.push_back(d->file());
    for (int i = 0; i < d->file()->dependency_count(); ++i) files.push_back(d->file()->dependency(i));
  }
  std::function<void(const Descriptor&)> walk = [&](const Descriptor& m) {
    names.insert(m.full_name());
    for (int i = 0; i < m.nested_type_count(); ++i) walk(*m.nested_type(i));
  };
  for (const FileDescriptor* f : files) {
    if (f->package() != package) continue;
    for (int i = 0; i < f->message_type_count(); ++i) walk(*f->message_type(i));
    for (int i = 0; i < f->enum_type_count(); ++i) names.insert(f->enum_type(i)->full_name());
  }
  return names;
}

class UpstreamWire : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() {
    std::ifstream in("integration/testdata/proton/wire.txtpb");
    std::stringstream text;
    text << in.rdbuf();
    FileDescriptorSet set;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &set));
    for (const auto& f : set.file()) ASSERT_NE(pool_.BuildFile(f), nullptr) << f.name();
  }
  static DescriptorPool pool_;
};
DescriptorPool UpstreamWire::pool_;

TEST_P(UpstreamWire, EveryDeclarationMatches) {
  const FileDescriptor* up = pool_.FindFileByName(GetParam());
  ASSERT_NE(up, nullptr);
  std::vector<std::string> diffs;
  std::set<std::string> upstream_names;
  for (int i = 0; i < up->service_count(); ++i) CompareService(*up->service(i), &diffs);
  std::function<void(const Descriptor&)> walk = [&](const Descriptor& m) {
    upstream_names.insert(m.full_name());
    for (int i = 0; i < m.nested_type_count(); ++i) walk(*m.nested_type(i));
  };
  for (int i = 0; i < up->message_type_count(); ++i) {
    CompareMessage(*up->message_type(i), &diffs);
    walk(*up->message_type(i));
  }
  for (int i = 0; i < up->enum_type_count(); ++i) {
    CompareEnum(*up->enum_type(i), &diffs);
    upstream_names.insert(up->enum_type(i)->full_name());
  }
  for (const std::string& name : OurNames(up->package())) {
    if (upstream_names.count(name) == 0) diffs.push_back("declared only here: " + name);
  }
  std::printf("%s: %d services, %d messages, %d enums compared; %zu differences\n", GetParam(),
              up->service_count(), up->message_type_count(), up->enum_type_count(), diffs.size());
  for (const std::string& d : diffs) ADD_FAILURE() << d;
}

INSTANTIATE_TEST_SUITE_P(Proton, UpstreamWire,
                         ::testing::Values("gotocompany/guardian/v1beta1/guardian.proto",
                                           "gotocompany/siren/v1beta1/siren.proto",
                                           "gotocompany/siren/v1/siren.proto"));

}  // namespace
