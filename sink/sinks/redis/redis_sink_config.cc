#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/redis/redis_sink.h"

namespace sluice::sink {
namespace {

// True when `spec` (names or numbers, dot-separated; already checked by
// RecordField::Parse) ends at a message-typed field, singular or repeated
// (not a map), other than a Timestamp.
bool IsMessageValued(absl::string_view spec, const google::protobuf::Descriptor* d) {
  const google::protobuf::FieldDescriptor* f = nullptr;
  for (absl::string_view part : absl::StrSplit(spec, '.')) {
    if (d == nullptr) return false;
    int number = 0;
    f = absl::SimpleAtoi(part, &number) ? d->FindFieldByNumber(number)
                                        : d->FindFieldByName(std::string(part));
    if (f == nullptr) return false;
    d = f->message_type();
  }
  return f != nullptr && f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE &&
         !f->is_map() && !IsTimestamp(f->message_type());
}

// The value field of LIST / KEYVALUE: depot's *_DATA_FIELD_NAME or older
// Firehose's *_DATA_PROTO_INDEX.
absl::Status ParseValueField(const Env& env, const std::string& prefix,
                             const google::protobuf::Descriptor* d, RedisSinkConfig* c) {
  std::string by_name = absl::StrCat(prefix, "_DATA_FIELD_NAME");
  std::string by_index = absl::StrCat(prefix, "_DATA_PROTO_INDEX");
  std::string variable = env.Get(by_name) ? by_name : by_index;
  auto spec = env.Get(variable);
  if (!spec) {
    return absl::InvalidArgumentError(absl::StrCat("SINK_REDIS_DATA_TYPE needs ", by_name, " (or ",
                                                   by_index, ")"));
  }
  auto f = RecordField::Parse(*spec, d, variable);
  if (!f.ok()) return f.status();
  c->value = std::make_shared<const RecordField>(*std::move(f));
  c->value_is_message = IsMessageValued(*spec, d);
  return absl::OkStatus();
}

// HASHSET: {"<field>": "<hash field template>"}.
absl::Status ParseHashFields(const Env& env, const google::protobuf::Descriptor* d,
                             RedisSinkConfig* c) {
  std::string variable = "SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING";
  if (!env.Get(variable) && env.Get("INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING")) {
    variable = "INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING";
  }
  auto text = env.Get(variable);
  if (!text) {
    return absl::InvalidArgumentError(
        "SINK_REDIS_DATA_TYPE=HASHSET needs SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING (e.g. "
        "{\"order_number\":\"ORDER_NUMBER\"})");
  }
  nlohmann::json doc = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || doc.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(variable, " must be a non-empty JSON object of field -> hash field"));
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it.value().is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat(variable, ": the hash field of \"", it.key(), "\" must be a string"));
    }
    auto value = RecordField::Parse(it.key(), d, variable);
    if (!value.ok()) return value.status();
    auto name = FieldTemplate::Parse(it.value().get<std::string>(), d, variable);
    if (!name.ok()) return name.status();
    c->hash_fields.push_back({*std::move(value), *std::move(name), IsMessageValued(it.key(), d)});
  }
  return absl::OkStatus();
}

absl::Status ParseTtlAndTimeouts(const Env& env, RedisSinkConfig* c) {
  auto ttl = env.GetEnum("SINK_REDIS_TTL_TYPE", "DISABLE", {"DISABLE", "DURATION", "EXACT_TIME"});
  if (!ttl.ok()) return ttl.status();
  c->ttl = *ttl == "DURATION"     ? RedisSinkConfig::Ttl::kDuration
           : *ttl == "EXACT_TIME" ? RedisSinkConfig::Ttl::kExactTime
                                  : RedisSinkConfig::Ttl::kDisable;
  auto value = env.GetInt("SINK_REDIS_TTL_VALUE", 0);
  if (!value.ok()) return value.status();
  if (c->ttl != RedisSinkConfig::Ttl::kDisable && *value <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SINK_REDIS_TTL_VALUE must be > 0 with SINK_REDIS_TTL_TYPE=", *ttl,
        c->ttl == RedisSinkConfig::Ttl::kDuration ? " (seconds)" : " (a unix time in seconds)"));
  }
  c->ttl_value = *value;
  auto socket = env.GetPositiveInt("SINK_REDIS_SOCKET_TIMEOUT_MS", 10000);
  if (!socket.ok()) return socket.status();
  c->socket_timeout_ms = *socket;
  auto connect = env.GetPositiveInt("SINK_REDIS_CONNECTION_TIMEOUT_MS", 5000);
  if (!connect.ok()) return connect.status();
  c->connect_timeout_ms = *connect;
  auto defaults = env.GetBool("SINK_REDIS_DEFAULT_FIELD_VALUE_ENABLE", true);
  if (!defaults.ok()) return defaults.status();
  c->default_field_values = *defaults;
  // depot trims every value and reads an empty one as unset.
  auto trimmed = [&](const char* name) {
    return std::string(absl::StripAsciiWhitespace(env.Get(name).value_or("")));
  };
  c->auth.username = trimmed("SINK_REDIS_AUTH_USERNAME");
  c->auth.password = trimmed("SINK_REDIS_AUTH_PASSWORD");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RedisSinkConfig> RedisSinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  RedisSinkConfig c;
  auto urls = env.GetHostPorts("SINK_REDIS_URLS", "localhost:6379");
  if (!urls.ok()) return urls.status();
  c.urls.assign(urls->begin(), urls->end());
  auto deployment = env.GetEnum("SINK_REDIS_DEPLOYMENT_TYPE", "STANDALONE", {"STANDALONE", "CLUSTER"});
  if (!deployment.ok()) return deployment.status();
  c.cluster = *deployment == "CLUSTER";
  auto type = env.GetEnum("SINK_REDIS_DATA_TYPE", "HASHSET", {"LIST", "HASHSET", "KEYVALUE"});
  if (!type.ok()) return type.status();
  // Fields keep field numbers, so the descriptor is needed only here.
  auto owned = ctx.InputDescriptor();
  if (!owned.ok()) return owned.status();
  const google::protobuf::Descriptor* d = *owned ? (*owned)->get() : nullptr;
  auto key = env.Require("SINK_REDIS_KEY_TEMPLATE");
  if (!key.ok()) return key.status();
  auto tmpl = FieldTemplate::Parse(*key, d, "SINK_REDIS_KEY_TEMPLATE");
  if (!tmpl.ok()) return tmpl.status();
  c.key = std::make_shared<const FieldTemplate>(*std::move(tmpl));
  absl::Status s;
  if (*type == "LIST") {
    c.data_type = DataType::kList;
    s = ParseValueField(env, "SINK_REDIS_LIST", d, &c);
  } else if (*type == "KEYVALUE") {
    c.data_type = DataType::kKeyValue;
    s = ParseValueField(env, "SINK_REDIS_KEY_VALUE", d, &c);
  } else {
    c.data_type = DataType::kHashSet;
    s = ParseHashFields(env, d, &c);
  }
  if (!s.ok()) return s;
  if (s = ParseTtlAndTimeouts(env, &c); !s.ok()) return s;
  return c;
}

}  // namespace sluice::sink
