// Test helper: the Firehose-style sample schemas of sample.proto, loaded at run
// time from the `sample_cc_descriptor_set` FileDescriptorSet into a private
// DescriptorPool, with messages built as DynamicMessages (as the sink does).
#ifndef SLUICE_COMMON_EXPR_TESTDATA_SAMPLE_MESSAGES_H_
#define SLUICE_COMMON_EXPR_TESTDATA_SAMPLE_MESSAGES_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/message.h"

namespace sluice::expr::testing {

class SampleSchemas {
 public:
  // Loads common/expr/testdata/sample_cc.desc from the runfiles.
  static absl::StatusOr<std::unique_ptr<SampleSchemas>> Load();

  // Message type by short name ("SampleLogMessage") in package sluice.expr.test.
  const google::protobuf::Descriptor* Type(absl::string_view name) const;
  // A DynamicMessage of `type` parsed from text format; InvalidArgument on bad text.
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> Parse(
      absl::string_view type, absl::string_view text_proto) const;

 private:
  SampleSchemas() = default;
  google::protobuf::DescriptorPool pool_;
  mutable google::protobuf::DynamicMessageFactory factory_{&pool_};
};

}  // namespace sluice::expr::testing

#endif  // SLUICE_COMMON_EXPR_TESTDATA_SAMPLE_MESSAGES_H_
