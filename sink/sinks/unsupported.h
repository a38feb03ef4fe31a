// Firehose/depot types sluice-sink does not have, refused at start with one
// message that lists what is supported (issue 29): SINK_TYPE BLOB, BIGTABLE
// and MAXCOMPUTE, and DLQ_BLOB_STORAGE_TYPE OSS and COS. See sink/README.md
// "Refused types" for why (no packaged Parquet, Bigtable, MaxCompute, OSS or
// COS client on the build machines).
#ifndef SLUICE_SINK_SINKS_UNSUPPORTED_H_
#define SLUICE_SINK_SINKS_UNSUPPORTED_H_

#include <string>

#include "absl/status/status.h"
#include "sink/env.h"

namespace sluice::sink {

// FailedPrecondition when `env` selects one of the types above (SINK_TYPE;
// DLQ_BLOB_STORAGE_TYPE when DLQ_SINK_ENABLE=true and
// DLQ_WRITER_TYPE=BLOB_STORAGE, the only case Firehose reads it), naming the
// variable, its value, why, and every supported SINK_TYPE, DLQ_WRITER_TYPE
// and DLQ_BLOB_STORAGE_TYPE. OK otherwise (other values are checked by
// ParseSinkConfig and CreateSink).
absl::Status RefuseUnsupportedTypes(const Env& env);

// "supported SINK_TYPE: bigquery, ...; DLQ_WRITER_TYPE: KAFKA, LOG,
// BLOB_STORAGE (DLQ_BLOB_STORAGE_TYPE: GCS, S3)".
std::string SupportedTypesText();

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_UNSUPPORTED_H_
