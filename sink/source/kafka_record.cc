#include "sink/source/kafka_record.h"

#include "absl/strings/str_cat.h"

namespace sluice::sink {

absl::StatusOr<rd_kafka_conf_t*> NewKafkaConf(const std::map<std::string, std::string>& properties,
                                              absl::string_view what) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] : properties) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return absl::InvalidArgumentError(absl::StrCat(what, " property ", k, ": ", err));
    }
  }
  return conf;
}

void ToMessage(const rd_kafka_message_t* m, const std::string& topic, int64_t now_ms,
               Message* msg) {
  msg->topic = topic;
  msg->partition = m->partition;
  msg->offset = m->offset;
  if (m->key != nullptr) msg->key.emplace(static_cast<const char*>(m->key), m->key_len);
  if (m->payload != nullptr) msg->value.assign(static_cast<const char*>(m->payload), m->len);
  rd_kafka_timestamp_type_t tstype;
  msg->timestamp_ms = rd_kafka_message_timestamp(m, &tstype);
  msg->consume_timestamp_ms = now_ms;
  rd_kafka_headers_t* hdrs = nullptr;
  // rd_kafka_message_headers takes a non-const message; it only reads.
  if (rd_kafka_message_headers(const_cast<rd_kafka_message_t*>(m), &hdrs) ==
          RD_KAFKA_RESP_ERR_NO_ERROR &&
      hdrs != nullptr) {
    const char* name;
    const void* value;
    size_t size;
    for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &value, &size) == 0; ++i) {
      msg->headers.emplace_back(name, value ? std::string(static_cast<const char*>(value), size)
                                            : std::string());
    }
  }
}

}  // namespace sluice::sink
