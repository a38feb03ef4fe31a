#include "sink/sinks/unsupported.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sink/sinks/registry.h"

namespace sluice::sink {
namespace {

struct Refused {
  const char* variable;
  const char* value;  // upper case
  const char* why;
};

constexpr Refused kRefused[] = {
    {"SINK_TYPE", "BLOB",
     "Firehose's blob sink writes Parquet files, and no Parquet library (Apache Arrow/Parquet) is "
     "packaged for this build"},
    {"SINK_TYPE", "BIGTABLE",
     "depot's Bigtable sink needs a Bigtable client, and none (google-cloud-cpp) is packaged for "
     "this build"},
    {"SINK_TYPE", "MAXCOMPUTE",
     "depot's MaxCompute sink needs Alibaba's MaxCompute (ODPS) tunnel SDK, which is not packaged "
     "for this build"},
    {"DLQ_BLOB_STORAGE_TYPE", "OSS",
     "no Alibaba Cloud OSS client is packaged for this build"},
    {"DLQ_BLOB_STORAGE_TYPE", "COS",
     "no Tencent Cloud COS client is packaged for this build"},
};

std::string Upper(const std::string& s) {
  return absl::AsciiStrToUpper(absl::StripAsciiWhitespace(s));
}

}  // namespace

std::string SupportedTypesText() {
  return absl::StrCat("supported SINK_TYPE: ", absl::StrJoin(KnownSinkTypes(), ", "),
                      "; DLQ_WRITER_TYPE: KAFKA, LOG, BLOB_STORAGE (DLQ_BLOB_STORAGE_TYPE: GCS, S3)");
}

absl::Status RefuseUnsupportedTypes(const Env& env) {
  std::string sink = Upper(env.GetOr("SINK_TYPE", ""));
  bool blob_dlq = Upper(env.GetOr("DLQ_SINK_ENABLE", "false")) == "TRUE" &&
                  Upper(env.GetOr("DLQ_WRITER_TYPE", "LOG")) == "BLOB_STORAGE";
  std::string dlq = blob_dlq ? Upper(env.GetOr("DLQ_BLOB_STORAGE_TYPE", "GCS")) : "";
  for (const Refused& r : kRefused) {
    const std::string& value = absl::string_view(r.variable) == "SINK_TYPE" ? sink : dlq;
    if (value != r.value) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        r.variable, "=", r.value, " is not supported by sluice-sink: ", r.why, "; ",
        SupportedTypesText()));
  }
  return absl::OkStatus();
}

}  // namespace sluice::sink
