#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "sink/sinks/mongodb/mongo_sink.h"

namespace sluice::sink {
namespace {

absl::Status ParseBlacklist(const Env& env, MongoSinkConfig* c) {
  auto text = env.Get("SINK_MONGO_RETRY_STATUS_CODE_BLACKLIST");
  if (!text) return absl::OkStatus();  // default {11000}
  c->retry_blacklist.clear();
  for (absl::string_view code : absl::StrSplit(*text, ',', absl::SkipWhitespace())) {
    int32_t n = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(code), &n)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SINK_MONGO_RETRY_STATUS_CODE_BLACKLIST: \"", code, "\" is not a number (e.g. 16608,11000)"));
    }
    c->retry_blacklist.insert(n);
  }
  return absl::OkStatus();
}

absl::Status ParseAuth(const Env& env, MongoSinkConfig* c) {
  auto auth = env.GetBool("SINK_MONGO_AUTH_ENABLE", false);
  if (!auth.ok()) return auth.status();
  c->auth = *auth;
  if (!c->auth) return absl::OkStatus();
  for (auto [name, field] : {std::pair{"SINK_MONGO_AUTH_USERNAME", &c->username},
                             std::pair{"SINK_MONGO_AUTH_PASSWORD", &c->password},
                             std::pair{"SINK_MONGO_AUTH_DB", &c->auth_db}}) {
    auto v = env.Require(name);
    if (!v.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(name, " is required with SINK_MONGO_AUTH_ENABLE=true"));
    }
    *field = *v;
  }
  return absl::OkStatus();
}

absl::Status ParseInputType(const Env& env, const SinkContext& ctx, MongoSinkConfig* c) {
  bool json_input = !ctx.find_message;
  auto type = env.GetEnum("SINK_MONGO_INPUT_MESSAGE_TYPE", json_input ? "JSON" : "PROTOBUF",
                          {"JSON", "PROTOBUF"});
  if (!type.ok()) return type.status();
  c->protobuf = *type == "PROTOBUF";
  if (c->protobuf == json_input) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SINK_MONGO_INPUT_MESSAGE_TYPE=", *type, " contradicts INPUT_SCHEMA_DATA_TYPE=",
        json_input ? "json" : "protobuf", " (records are decoded by INPUT_SCHEMA_DATA_TYPE)"));
  }
  auto preserve = env.GetBool("SINK_MONGO_PRESERVE_PROTO_FIELD_NAMES_ENABLE", true);
  if (!preserve.ok()) return preserve.status();
  c->preserve_proto_field_names = *preserve;
  return absl::OkStatus();
}

absl::Status ParseTimeouts(const Env& env, MongoSinkConfig* c) {
  for (auto [name, field] : {std::pair{"SINK_MONGO_CONNECT_TIMEOUT_MS", &c->connect_timeout_ms},
                             std::pair{"SINK_MONGO_SERVER_SELECT_TIMEOUT_MS", &c->server_select_timeout_ms},
                             std::pair{"SINK_MONGO_SOCKET_TIMEOUT_MS", &c->socket_timeout_ms}}) {
    auto v = env.GetPositiveInt(name, static_cast<int>(*field));
    if (!v.ok()) return v.status();
    *field = *v;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MongoSinkConfig> MongoSinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  MongoSinkConfig c;
  // Firehose's MongoSinkUtil.getServerAddresses rule: every entry host:port.
  auto hosts = env.GetHostPorts("SINK_MONGO_CONNECTION_URLS", "localhost:27017");
  if (!hosts.ok()) return hosts.status();
  c.hosts.assign(hosts->begin(), hosts->end());
  for (auto [name, field] : {std::pair{"SINK_MONGO_DB_NAME", &c.db},
                             std::pair{"SINK_MONGO_COLLECTION_NAME", &c.collection}}) {
    auto v = env.Require(name);
    if (!v.ok()) return v.status();
    *field = *v;
  }
  c.primary_key = env.Get("SINK_MONGO_PRIMARY_KEY").value_or("");
  auto update_only = env.GetBool("SINK_MONGO_MODE_UPDATE_ONLY_ENABLE", false);
  if (!update_only.ok()) return update_only.status();
  c.update_only = *update_only;
  if (c.update_only && c.primary_key.empty()) {
    return absl::InvalidArgumentError(
        "SINK_MONGO_MODE_UPDATE_ONLY_ENABLE=true needs SINK_MONGO_PRIMARY_KEY (the field that "
        "names the document to update)");
  }
  for (auto parse : {&ParseBlacklist, &ParseAuth, &ParseTimeouts}) {
    if (absl::Status s = parse(env, &c); !s.ok()) return s;
  }
  if (absl::Status s = ParseInputType(env, ctx, &c); !s.ok()) return s;
  return c;
}

}  // namespace sluice::sink
