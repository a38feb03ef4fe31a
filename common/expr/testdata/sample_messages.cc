#include "common/expr/testdata/sample_messages.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/text_format.h"

namespace sluice::expr::testing {

namespace pb = google::protobuf;

namespace {

constexpr char kPath[] = "common/expr/testdata/sample_cc.desc";

absl::StatusOr<std::string> ReadRunfile() {
  std::vector<std::string> candidates = {kPath};
  for (const char* env : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(env)) candidates.push_back(absl::StrCat(dir, "/sluice/", kPath));
  }
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) candidates.push_back(absl::StrCat(std::string(exe, n), ".runfiles/sluice/", kPath));
  for (const std::string& path : candidates) {
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  return absl::NotFoundError(absl::StrCat("cannot find ", kPath, " in the runfiles"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<SampleSchemas>> SampleSchemas::Load() {
  absl::StatusOr<std::string> bytes = ReadRunfile();
  if (!bytes.ok()) return bytes.status();
  pb::FileDescriptorSet set;
  if (!set.ParseFromString(*bytes)) return absl::DataLossError("bad FileDescriptorSet");
  std::unique_ptr<SampleSchemas> s(new SampleSchemas());
  for (const pb::FileDescriptorProto& file : set.file()) {
    if (s->pool_.BuildFile(file) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("cannot build ", file.name()));
    }
  }
  return s;
}

const pb::Descriptor* SampleSchemas::Type(absl::string_view name) const {
  return pool_.FindMessageTypeByName(absl::StrCat("sluice.expr.test.", name));
}

absl::StatusOr<std::unique_ptr<pb::Message>> SampleSchemas::Parse(
    absl::string_view type, absl::string_view text_proto) const {
  const pb::Descriptor* d = Type(type);
  if (d == nullptr) return absl::NotFoundError(absl::StrCat("no message type ", type));
  std::unique_ptr<pb::Message> m(factory_.GetPrototype(d)->New());
  if (!pb::TextFormat::ParseFromString(std::string(text_proto), m.get())) {
    return absl::InvalidArgumentError(absl::StrCat("bad text proto for ", type));
  }
  return m;
}

}  // namespace sluice::expr::testing
