// BigQuery table schemas and rows for the bigquery sink, following goto/depot:
// a proto descriptor becomes TableFieldSchema JSON by depot's BQField mapping
// (depot: bigquery/models/BQField.java, bigquery/proto/BigqueryFields.java),
// a message becomes an insertAll row by depot's MessageRecordConverter, and
// a JSON record becomes STRING columns (depot's dynamic JSON schema with
// SINK_BIGQUERY_DEFAULT_DATATYPE_STRING_ENABLE=true) or inferred types.
//
// Schema JSON is BigQuery's REST shape
// (cloud.google.com/bigquery/docs/reference/rest/v2/tables#TableFieldSchema):
// [{"name": "x", "type": "INTEGER", "mode": "NULLABLE", "fields": [...]}].
#ifndef SLUICE_SINK_SINKS_BIGQUERY_BIGQUERY_SCHEMA_H_
#define SLUICE_SINK_SINKS_BIGQUERY_BIGQUERY_SCHEMA_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "nlohmann/json.hpp"
#include "sink/message.h"

namespace sluice::sink::bigquery {

// The fields of `d` as TableFieldSchema JSON, by depot's BQField mapping:
// string/enum → STRING, bytes → BYTES, double/float → FLOAT, bool → BOOLEAN,
// every integer type → INTEGER, message → RECORD (with sub-fields),
// google.protobuf.Timestamp → TIMESTAMP, Struct → STRING, Duration → RECORD
// (seconds, nanos); a map is a REPEATED RECORD of key/value. Modes: optional
// → NULLABLE, repeated → REPEATED, proto2 required → REQUIRED. Recursion
// stops at BigQuery's nesting limit of 15 levels (a deeper field is left out).
nlohmann::json ProtoSchema(const google::protobuf::Descriptor* d);

// One metadata column of SINK_BIGQUERY_METADATA_COLUMNS_TYPES.
struct MetadataColumn {
  std::string name;  // message_offset, message_partition, message_topic,
                     // message_timestamp, load_time, message_key
  std::string type;  // BigQuery type, upper case: INTEGER, STRING, TIMESTAMP
};

// Parses "name=type,..." (Firehose's default
// "message_offset=integer,message_topic=string,load_time=timestamp,
// message_timestamp=timestamp,message_partition=integer"). InvalidArgument
// naming `variable` on a malformed entry, an unknown name or type.
absl::StatusOr<std::vector<MetadataColumn>> ParseMetadataColumns(absl::string_view spec,
                                                                 absl::string_view variable);

// The metadata columns as TableFieldSchema JSON: flat NULLABLE columns, or one
// NULLABLE RECORD named `ns` holding them when `ns` is not empty (depot's
// getNamespacedMetadataField).
nlohmann::json MetadataSchema(const std::vector<MetadataColumn>& columns, const std::string& ns);

// Parses "name=type,..." (SINK_BIGQUERY_DEFAULT_COLUMNS) into NULLABLE
// columns of those BigQuery types. InvalidArgument naming `variable`.
absl::StatusOr<nlohmann::json> ParseDefaultColumns(absl::string_view spec, absl::string_view variable);

// The column of a JSON member value: STRING when `all_strings`, else INTEGER,
// FLOAT, BOOLEAN or STRING (objects and arrays are stored as JSON text).
nlohmann::json JsonColumn(const std::string& name, const nlohmann::json& value, bool all_strings);

// Adds to `*fields` the fields of `wanted` it lacks (by name; RECORD
// sub-fields merged recursively). Existing fields are never changed or
// removed: BigQuery only allows adding NULLABLE/REPEATED columns. Returns
// whether anything was added.
bool MergeSchema(nlohmann::json* fields, const nlohmann::json& wanted);

// The insertAll row of a decoded message (depot's MessageRecordConverter) as
// JSON text, written directly (no JSON tree: this is the sink's hot path):
// only fields that are set, in field order; integers as JSON numbers, enums
// by name, bytes base64, Timestamps as RFC 3339 UTC with milliseconds,
// Struct as JSON text, nested messages as objects, repeated fields as
// arrays, maps as arrays of {key, value}. InvalidArgument naming the field
// for a NaN or infinite float (depot refuses them too) or a string that is
// not UTF-8.
absl::StatusOr<std::string> ProtoRow(const google::protobuf::Message& message);

// The insertAll row of a JSON record: top-level members that are not null;
// strings as they are and other values as their JSON text when
// `all_strings`, else numbers and booleans as they are (objects and arrays as
// JSON text in both cases). A record that is not an object → InvalidArgument.
absl::StatusOr<nlohmann::json> JsonRow(const nlohmann::json& record, bool all_strings);

// Adds the metadata of `m` to `*row`: flat, or under `ns` when not empty.
// Timestamps as RFC 3339 UTC with milliseconds: message_timestamp is the
// Kafka timestamp, load_time is `load_time` (TimestampText of the batch's
// start, formatted once per batch).
void AddMetadata(nlohmann::json* row, const Message& m, const std::vector<MetadataColumn>& columns,
                 const std::string& ns, const std::string& load_time);

// RFC 3339 UTC with milliseconds, e.g. "2024-05-01T10:00:00.000Z".
std::string TimestampText(absl::Time t);

}  // namespace sluice::sink::bigquery

#endif  // SLUICE_SINK_SINKS_BIGQUERY_BIGQUERY_SCHEMA_H_
