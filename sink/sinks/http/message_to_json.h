// Firehose's MessageToJson body (firehose: serializer/MessageToJson), used by
// the http sink with SINK_HTTP_DATA_FORMAT=json and no body template.
#ifndef SLUICE_SINK_SINKS_HTTP_MESSAGE_TO_JSON_H_
#define SLUICE_SINK_SINKS_HTTP_MESSAGE_TO_JSON_H_

#include <cstdint>
#include <string>

#include "google/protobuf/message.h"

namespace sluice::sink {

// Gson's default java.util.Date text for a Timestamp of `seconds` since the
// epoch, the way Firehose gets there: it parses the RFC 3339 text with
// SimpleDateFormat("yyyy-MM-dd'T'hh:mm:ss") (fractions dropped; "hh" reads
// hour 12 as 0, so 12:xx becomes 12:xx AM) and prints "MMM d, yyyy h:mm:ss a"
// in the same zone, e.g. "Mar 20, 2017 10:54:00 AM"
// (firehose: MessageToJsonTest expectations).
std::string GsonDateText(int64_t seconds);

// The message as proto3 JSON with lowerCamelCase names (JsonFormat.printer()).
// With `simple_date_format` (SINK_HTTP_SIMPLE_DATE_FORMAT_ENABLE, default
// true) every set top-level google.protobuf.Timestamp field is GsonDateText
// instead; nested and repeated ones stay RFC 3339, as in Firehose.
std::string FirehoseMessageJson(const google::protobuf::Message& message,
                                bool simple_date_format);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_HTTP_MESSAGE_TO_JSON_H_
