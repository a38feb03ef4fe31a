#include "sink/source/kafka_properties.h"

#include <cstdint>
#include <fstream>
#include <algorithm>
#include <functional>
#include <iterator>
#include <memory>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "librdkafka/rdkafka.h"

namespace sluice::sink {
namespace {

// One set variable: its Java property name, full variable name and value.
struct Prop {
  std::string java;      // "fetch.max.wait.ms"
  std::string variable;  // "SOURCE_KAFKA_CONSUMER_CONFIG_FETCH_MAX_WAIT_MS"
  std::string value;
};

// The translation in progress.
class Translation {
 public:
  Translation(absl::string_view prefix, KafkaClient client,
              std::map<std::string, Prop> props)
      : prefix_(prefix), client_(client), props_(std::move(props)) {}

  KafkaClient client() const { return client_; }
  const char* ClientName() const {
    return client_ == KafkaClient::kConsumer ? "the source consumer" : "the DLQ producer";
  }
  // The variable that would carry Java property `java` (for messages).
  std::string Var(absl::string_view java) const {
    std::string v = absl::StrCat(prefix_, java);
    for (char& c : v) c = c == '.' ? '_' : absl::ascii_toupper(static_cast<unsigned char>(c));
    return v;
  }
  // The set property `java`, or null.
  const Prop* Find(absl::string_view java) const {
    auto it = props_.find(std::string(java));
    return it == props_.end() ? nullptr : &it->second;
  }
  // Marks `java` as handled by another property's rule.
  void Consume(absl::string_view java) { consumed_.insert(std::string(java)); }
  bool Consumed(const std::string& java) const { return consumed_.count(java) > 0; }

  // Sets librdkafka property `name` from `p` (the variable named in errors).
  void Set(const Prop& p, std::string name, std::string value) {
    origin_[name] = p.variable;
    out_.properties[std::move(name)] = std::move(value);
  }
  // Set, plus a "translated" note; `shown` is the value to print (secrets
  // are never shown).
  void Translate(const Prop& p, std::string name, std::string value, absl::string_view shown) {
    AddNote(KafkaPropertyNote::Kind::kTranslated, p,
            absl::StrCat(p.java, " -> librdkafka ", name, shown.empty() ? "" : "=", shown));
    Set(p, std::move(name), std::move(value));
  }
  void Ignore(const Prop& p, absl::string_view why) {
    AddNote(KafkaPropertyNote::Kind::kIgnored, p, absl::StrCat(p.java, " ignored: ", why));
  }
  void AddNote(KafkaPropertyNote::Kind kind, const Prop& p, std::string text) {
    out_.notes.push_back({kind, p.variable, std::move(text)});
  }

  const std::map<std::string, Prop>& props() const { return props_; }
  const std::map<std::string, std::string>& origin() const { return origin_; }
  KafkaProperties& out() { return out_; }

 private:
  std::string prefix_;
  KafkaClient client_;
  std::map<std::string, Prop> props_;
  std::set<std::string> consumed_;
  std::map<std::string, std::string> origin_;  // librdkafka name -> variable
  KafkaProperties out_;
};

absl::Status Refuse(const Prop& p, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(p.variable, ": ", why));
}

bool IsSecretJava(absl::string_view java) {
  return absl::StrContains(java, "password") || absl::StrContains(java, "jaas") ||
         absl::StrContains(java, "secret") || absl::EndsWith(java, ".key") ||
         absl::StrContains(java, "keystore.key");
}

// ---- handlers for properties that need more than a rename ----------------

using Handler = std::function<absl::Status(Translation&, const Prop&)>;

// Java's socket buffer sizes: -1 is the OS default, librdkafka's 0.
Handler SocketBuffer(const char* target) {
  return [target](Translation& t, const Prop& p) {
    std::string v = p.value == "-1" ? "0" : p.value;
    t.Translate(p, target, v, v);
    return absl::OkStatus();
  };
}

absl::Status BufferMemory(Translation& t, const Prop& p) {
  int64_t bytes = 0;
  if (!absl::SimpleAtoi(p.value, &bytes) || bytes <= 0) {
    return Refuse(p, "must be a positive number of bytes");
  }
  // librdkafka counts KiB; round up so that the queue is never smaller.
  int64_t kib = std::min<int64_t>((bytes + 1023) / 1024, INT32_MAX);
  t.Translate(p, "queue.buffering.max.kbytes", absl::StrCat(kib),
              absl::StrCat(kib, " (KiB; ", bytes, " bytes)"));
  return absl::OkStatus();
}

// partition.assignment.strategy: Java class names (comma-separated) to
// librdkafka's assignor names. The group protocol names are the same on
// both sides ("range", "roundrobin", "cooperative-sticky"), so members of
// both kinds can share a group during a rolling swap.
absl::Status AssignmentStrategy(Translation& t, const Prop& p) {
  static const auto* kNames = new std::map<std::string, std::string>{
      {"org.apache.kafka.clients.consumer.RangeAssignor", "range"},
      {"org.apache.kafka.clients.consumer.RoundRobinAssignor", "roundrobin"},
      {"org.apache.kafka.clients.consumer.CooperativeStickyAssignor", "cooperative-sticky"},
      {"range", "range"},
      {"roundrobin", "roundrobin"},
      {"cooperative-sticky", "cooperative-sticky"},
  };
  std::vector<std::string> names;
  bool cooperative = false, eager = false;
  for (absl::string_view part : absl::StrSplit(p.value, ',', absl::SkipWhitespace())) {
    std::string cls(absl::StripAsciiWhitespace(part));
    if (cls == "org.apache.kafka.clients.consumer.StickyAssignor" || cls == "sticky") {
      return Refuse(p, absl::StrCat(
          "StickyAssignor (the eager \"sticky\" protocol) has no librdkafka equivalent; set ",
          p.variable, "=org.apache.kafka.clients.consumer.CooperativeStickyAssignor (Firehose's "
          "default; roll the Firehose deployment to it first, so that both kinds of member share "
          "the \"cooperative-sticky\" protocol), or RangeAssignor / RoundRobinAssignor"));
    }
    auto it = kNames->find(cls);
    if (it == kNames->end()) {
      return Refuse(p, absl::StrCat(
          "unknown assignor \"", cls, "\"; use org.apache.kafka.clients.consumer."
          "{CooperativeSticky,Range,RoundRobin}Assignor (or librdkafka's cooperative-sticky, "
          "range, roundrobin)"));
    }
    (it->second == "cooperative-sticky" ? cooperative : eager) = true;
    names.push_back(it->second);
  }
  if (names.empty()) return Refuse(p, "names no assignor");
  if (cooperative && eager) {
    return Refuse(p, "mixes the cooperative assignor with eager ones (range, roundrobin), which "
                     "librdkafka does not support; list either CooperativeStickyAssignor alone "
                     "or eager assignors only");
  }
  std::string v = absl::StrJoin(names, ",");
  t.Translate(p, "partition.assignment.strategy", v, v);
  return absl::OkStatus();
}

// key/value (de)serializers: records are bytes end to end in sluice-sink,
// which is what Firehose's ByteArray ones give.
Handler Serde(const char* bytes_class) {
  return [bytes_class](Translation& t, const Prop& p) {
    if (p.value == bytes_class) {
      t.Ignore(p, "records are handled as bytes, as with this class");
      return absl::OkStatus();
    }
    return Refuse(p, absl::StrCat("sluice-sink reads and writes record keys and values as bytes; "
                                  "only ", bytes_class, " (Firehose's default) is supported, "
                                  "got ", p.value));
  };
}

absl::Status SecurityProtocol(Translation& t, const Prop& p) {
  t.Set(p, "security.protocol", absl::AsciiStrToLower(p.value));
  return absl::OkStatus();
}

absl::Status EndpointIdentification(Translation& t, const Prop& p) {
  if (p.value.empty()) {
    // Java's "" turns hostname verification off; librdkafka spells it "none".
    t.Translate(p, "ssl.endpoint.identification.algorithm", "none", "none");
  } else {
    t.Set(p, "ssl.endpoint.identification.algorithm", absl::AsciiStrToLower(p.value));
  }
  return absl::OkStatus();
}

// Java's cipher suites are IANA names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256);
// librdkafka takes an OpenSSL cipher list. Pass an OpenSSL list through,
// refuse IANA names.
absl::Status CipherSuites(Translation& t, const Prop& p) {
  if (absl::StrContains(p.value, "TLS_") || absl::StrContains(p.value, "SSL_")) {
    return Refuse(p, "Java (IANA) cipher suite names; librdkafka takes an OpenSSL cipher list "
                     "(e.g. ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384, see "
                     "`openssl ciphers -stdname`): set that in this variable instead");
  }
  t.Set(p, "ssl.cipher.suites", p.value);
  return absl::OkStatus();
}

absl::Status AutoCommit(Translation& t, const Prop& p) {
  t.Ignore(p, "sluice-sink commits the offsets of delivered records itself, after each batch "
              "(SOURCE_KAFKA_CONSUMER_CONFIG_MANUAL_COMMIT_MIN_INTERVAL_MS spaces the commits)");
  return absl::OkStatus();
}

absl::Status Partitioner(Translation& t, const Prop& p) {
  if (p.value == "org.apache.kafka.clients.producer.internals.DefaultPartitioner") {
    // Java's default partitions keyed records by murmur2 of the key.
    t.Translate(p, "partitioner", "murmur2_random", "murmur2_random");
    return absl::OkStatus();
  }
  return Refuse(p, "custom Java partitioners cannot run here; unset it (or use "
                   "DLQ_KAFKA_PARTITIONER with a librdkafka partitioner: murmur2_random, "
                   "consistent_random, random, ...)");
}

// What kind of key store a file holds, from its first bytes.
enum class StoreKind { kPem, kJks, kPkcs12, kUnknown, kUnreadable };

StoreKind SniffStore(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return StoreKind::kUnreadable;
  char buf[64] = {};
  f.read(buf, sizeof(buf));
  absl::string_view head(buf, static_cast<size_t>(f.gcount()));
  if (absl::StrContains(head, "-----BEGIN")) return StoreKind::kPem;
  if (head.size() >= 4 && static_cast<unsigned char>(head[0]) == 0xFE &&
      static_cast<unsigned char>(head[1]) == 0xED && static_cast<unsigned char>(head[2]) == 0xFE &&
      static_cast<unsigned char>(head[3]) == 0xED) {
    return StoreKind::kJks;
  }
  if (!head.empty() && head[0] == 0x30) return StoreKind::kPkcs12;  // DER SEQUENCE
  // PEM files may start with comments ("Bag Attributes" from openssl).
  std::string rest;
  f.seekg(0);
  rest.assign(std::istreambuf_iterator<char>(f), {});
  if (absl::StrContains(rest, "-----BEGIN")) return StoreKind::kPem;
  return StoreKind::kUnknown;
}

// The store's kind: from <store>.type when set, else from the file.
absl::StatusOr<StoreKind> StoreKindOf(Translation& t, const Prop& location,
                                      absl::string_view type_java) {
  t.Consume(type_java);
  if (const Prop* type = t.Find(type_java)) {
    std::string ty = absl::AsciiStrToUpper(type->value);
    if (ty == "PEM") return StoreKind::kPem;
    if (ty == "JKS") return StoreKind::kJks;
    if (ty == "PKCS12") return StoreKind::kPkcs12;
    return Refuse(*type, absl::StrCat("unknown store type ", type->value, " (PEM, JKS, PKCS12)"));
  }
  StoreKind k = SniffStore(location.value);
  if (k == StoreKind::kUnreadable || k == StoreKind::kUnknown) {
    // Java's default type is JKS; say what was found and what to set.
    return Refuse(location, absl::StrCat(
        k == StoreKind::kUnreadable ? "cannot read " : "cannot tell the format of ",
        location.value, " (to tell PEM from JKS/PKCS12); set ", t.Var(type_java),
        " (PEM, JKS or PKCS12)"));
  }
  return k;
}

absl::Status Truststore(Translation& t, const Prop& p) {
  auto kind = StoreKindOf(t, p, "ssl.truststore.type");
  if (!kind.ok()) return kind.status();
  t.Consume("ssl.truststore.password");
  if (*kind == StoreKind::kPem) {
    t.Translate(p, "ssl.ca.location", p.value, p.value);
    if (const Prop* pw = t.Find("ssl.truststore.password")) {
      t.Ignore(*pw, "a PEM truststore has no password");
    }
    return absl::OkStatus();
  }
  const bool jks = *kind == StoreKind::kJks;
  return Refuse(p, absl::StrCat(
      "librdkafka cannot read a ", jks ? "JKS" : "PKCS12", " truststore; convert its CA "
      "certificates to PEM with ",
      jks ? "`keytool -list -rfc -keystore <truststore.jks>` (all of them) or `keytool "
            "-exportcert -rfc -keystore <truststore.jks> -alias <ca> -file ca.pem`"
          : "`openssl pkcs12 -in <truststore.p12> -nokeys -out ca.pem`",
      ", then set ", p.variable, "=ca.pem and ", t.Var("ssl.truststore.type"),
      "=PEM (or ", t.Var("ssl.ca.location"), "=ca.pem)"));
}

// ssl.truststore.certificates (KIP-651): the CA certificates themselves, in
// PEM; Java refuses them unless ssl.truststore.type is PEM, and beside a
// truststore location (DefaultSslEngineFactory).
absl::Status TruststoreCertificates(Translation& t, const Prop& p) {
  t.Consume("ssl.truststore.type");
  if (const Prop* type = t.Find("ssl.truststore.type");
      type != nullptr && absl::AsciiStrToUpper(type->value) != "PEM") {
    return Refuse(*type, absl::StrCat("must be PEM with ", p.variable, " (as in Java)"));
  }
  if (t.Find("ssl.truststore.location") != nullptr) {
    return Refuse(p, absl::StrCat("set either this or ", t.Var("ssl.truststore.location"),
                                  ", not both (as in Java)"));
  }
  t.Translate(p, "ssl.ca.pem", p.value, "(PEM certificates)");
  return absl::OkStatus();
}

absl::Status Keystore(Translation& t, const Prop& p) {
  auto kind = StoreKindOf(t, p, "ssl.keystore.type");
  if (!kind.ok()) return kind.status();
  t.Consume("ssl.keystore.password");
  switch (*kind) {
    case StoreKind::kPkcs12:
      t.Translate(p, "ssl.keystore.location", p.value, p.value);
      if (const Prop* pw = t.Find("ssl.keystore.password")) {
        t.Set(*pw, "ssl.keystore.password", pw->value);
      }
      return absl::OkStatus();
    case StoreKind::kJks:
      return Refuse(p, absl::StrCat(
          "librdkafka cannot read a JKS keystore; convert it with `keytool -importkeystore "
          "-srckeystore <keystore.jks> -destkeystore keystore.p12 -deststoretype PKCS12`, then "
          "set ", p.variable, "=keystore.p12 and ", t.Var("ssl.keystore.type"), "=PKCS12"));
    default:
      return Refuse(p, absl::StrCat(
          "a PEM keystore: set ", t.Var("ssl.certificate.location"), " (the certificate chain) "
          "and ", t.Var("ssl.key.location"), " (the private key) to PEM files instead"));
  }
}

// sasl.jaas.config: PLAIN and SCRAM credentials become librdkafka's
// sasl.mechanism, sasl.username and sasl.password.
absl::Status Jaas(Translation& t, const Prop& p) {
  auto entry = ParseJaasConfig(p.value);
  if (!entry.ok()) return Refuse(p, entry.status().message());
  t.Consume("sasl.mechanism");
  const Prop* mech = t.Find("sasl.mechanism");
  std::string mechanism = mech ? absl::AsciiStrToUpper(mech->value) : "";
  const std::string& module = entry->login_module;
  if (module == "org.apache.kafka.common.security.plain.PlainLoginModule") {
    if (!mechanism.empty() && mechanism != "PLAIN") {
      return Refuse(p, absl::StrCat("PlainLoginModule with ", t.Var("sasl.mechanism"), "=",
                                    mechanism, "; PlainLoginModule is SASL/PLAIN"));
    }
    mechanism = "PLAIN";
  } else if (module == "org.apache.kafka.common.security.scram.ScramLoginModule") {
    if (mechanism != "SCRAM-SHA-256" && mechanism != "SCRAM-SHA-512") {
      return Refuse(p, absl::StrCat("ScramLoginModule needs ", t.Var("sasl.mechanism"),
                                    "=SCRAM-SHA-256 or SCRAM-SHA-512 (as Kafka's Java client "
                                    "does)", mechanism.empty() ? "" : absl::StrCat(", got ", mechanism)));
    }
    if (auto it = entry->options.find("tokenauth");
        it != entry->options.end() && absl::AsciiStrToLower(it->second) == "true") {
      return Refuse(p, "delegation tokens (tokenauth=true) are not supported by librdkafka");
    }
  } else {
    std::string instead =
        absl::StrContains(module, "OAuthBearer")
            ? absl::StrCat("set ", t.Var("sasl.mechanism"), "=OAUTHBEARER with librdkafka's ",
                           t.Var("sasl.oauthbearer.method"), "=oidc, ",
                           t.Var("sasl.oauthbearer.client.id"), ", ",
                           t.Var("sasl.oauthbearer.client.secret"), " and ",
                           t.Var("sasl.oauthbearer.token.endpoint.url"))
        : absl::StrContains(module, "Krb5")
            ? absl::StrCat("set ", t.Var("sasl.mechanism"), "=GSSAPI with ",
                           t.Var("sasl.kerberos.keytab"), " and ",
                           t.Var("sasl.kerberos.principal"))
            : "use PlainLoginModule or ScramLoginModule";
    return Refuse(p, absl::StrCat("login module ", module,
                                  " cannot be used with librdkafka; ", instead));
  }
  auto user = entry->options.find("username");
  auto pass = entry->options.find("password");
  if (user == entry->options.end() || pass == entry->options.end()) {
    return Refuse(p, absl::StrCat(module, " needs username=\"...\" and password=\"...\""));
  }
  for (const char* direct : {"sasl.username", "sasl.password"}) {
    if (t.Find(direct) != nullptr) {
      return Refuse(p, absl::StrCat("set either ", p.variable, " or ", t.Var(direct), ", not both"));
    }
  }
  for (const auto& [k, v] : entry->options) {
    if (k != "username" && k != "password" && k != "tokenauth") {
      t.Ignore(p, absl::StrCat("JAAS option ", k, " has no librdkafka meaning"));
    }
  }
  t.Translate(p, "sasl.mechanism", mechanism, mechanism);
  t.Translate(p, "sasl.username", user->second, user->second);
  t.Translate(p, "sasl.password", pass->second, "(secret)");
  return absl::OkStatus();
}

// ---- the table -------------------------------------------------------------

enum Clients : unsigned { kC = 1, kP = 2, kBoth = 3 };

struct Rule {
  unsigned clients;
  enum Action { kRename, kWarn, kRefuse, kCustom } action;
  const char* arg;  // rename target, warning reason or refusal reason
  Handler handler;
};

const std::map<std::string, Rule>& Rules() {
  constexpr const char* kJvmTls = "a JVM TLS provider setting; librdkafka uses OpenSSL";
  constexpr const char* kMetrics = "Java client metrics; sluice-sink reports its own (METRIC_*)";
  constexpr const char* kLogin =
      "token/ticket refresh tuning of Java's login modules; librdkafka refreshes on its own";
  static const auto* rules = new std::map<std::string, Rule>{
      // Renamed (same value).
      {"fetch.max.wait.ms", {kC, Rule::kRename, "fetch.wait.max.ms", nullptr}},
      {"max.request.size", {kP, Rule::kRename, "message.max.bytes", nullptr}},
      // Java: how often metadata is refreshed. librdkafka's metadata.max.age.ms
      // is a cache lifetime; short values keep group members rejoining.
      {"metadata.max.age.ms", {kBoth, Rule::kRename, "topic.metadata.refresh.interval.ms", nullptr}},
      // Translated.
      {"receive.buffer.bytes", {kBoth, Rule::kCustom, nullptr, SocketBuffer("socket.receive.buffer.bytes")}},
      {"send.buffer.bytes", {kBoth, Rule::kCustom, nullptr, SocketBuffer("socket.send.buffer.bytes")}},
      {"buffer.memory", {kP, Rule::kCustom, nullptr, BufferMemory}},
      {"partition.assignment.strategy", {kC, Rule::kCustom, nullptr, AssignmentStrategy}},
      {"sasl.jaas.config", {kBoth, Rule::kCustom, nullptr, Jaas}},
      {"ssl.truststore.location", {kBoth, Rule::kCustom, nullptr, Truststore}},
      {"ssl.keystore.location", {kBoth, Rule::kCustom, nullptr, Keystore}},
      {"security.protocol", {kBoth, Rule::kCustom, nullptr, SecurityProtocol}},
      {"ssl.endpoint.identification.algorithm", {kBoth, Rule::kCustom, nullptr, EndpointIdentification}},
      {"ssl.cipher.suites", {kBoth, Rule::kCustom, nullptr, CipherSuites}},
      {"ssl.truststore.certificates", {kBoth, Rule::kCustom, nullptr, TruststoreCertificates}},
      {"ssl.keystore.certificate.chain", {kBoth, Rule::kRename, "ssl.certificate.pem", nullptr}},
      {"ssl.keystore.key", {kBoth, Rule::kRename, "ssl.key.pem", nullptr}},
      {"key.deserializer", {kC, Rule::kCustom, nullptr, Serde("org.apache.kafka.common.serialization.ByteArrayDeserializer")}},
      {"value.deserializer", {kC, Rule::kCustom, nullptr, Serde("org.apache.kafka.common.serialization.ByteArrayDeserializer")}},
      {"key.serializer", {kP, Rule::kCustom, nullptr, Serde("org.apache.kafka.common.serialization.ByteArraySerializer")}},
      {"value.serializer", {kP, Rule::kCustom, nullptr, Serde("org.apache.kafka.common.serialization.ByteArraySerializer")}},
      {"enable.auto.commit", {kC, Rule::kCustom, nullptr, AutoCommit}},
      {"auto.commit.enable", {kC, Rule::kCustom, nullptr, AutoCommit}},
      {"auto.commit.interval.ms", {kC, Rule::kCustom, nullptr, AutoCommit}},
      {"partitioner.class", {kP, Rule::kCustom, nullptr, Partitioner}},
      // No meaning here, nothing delivered changes: one warning each.
      {"default.api.timeout.ms", {kC, Rule::kWarn, "bounds the Java consumer's blocking calls; sluice-sink bounds its own commits and shutdown", nullptr}},
      {"client.dns.lookup", {kBoth, Rule::kWarn, "librdkafka tries every address a broker name resolves to", nullptr}},
      {"request.timeout.ms", {kC, Rule::kWarn, "a producer setting in librdkafka; the consumer's requests use socket.timeout.ms", nullptr}},
      {"exclude.internal.topics", {kC, Rule::kWarn, "internal topics (__consumer_offsets, ...) hold no records to sink", nullptr}},
      {"internal.leave.group.on.close", {kC, Rule::kWarn, "librdkafka always leaves the group on close", nullptr}},
      {"socket.connection.setup.timeout.max.ms", {kBoth, Rule::kWarn, "librdkafka has only socket.connection.setup.timeout.ms", nullptr}},
      {"metric.reporters", {kBoth, Rule::kWarn, kMetrics, nullptr}},
      {"metrics.num.samples", {kBoth, Rule::kWarn, kMetrics, nullptr}},
      {"metrics.sample.window.ms", {kBoth, Rule::kWarn, kMetrics, nullptr}},
      {"metrics.recording.level", {kBoth, Rule::kWarn, kMetrics, nullptr}},
      {"auto.include.jmx.reporter", {kBoth, Rule::kWarn, kMetrics, nullptr}},
      {"ssl.protocol", {kBoth, Rule::kWarn, "librdkafka negotiates the highest TLS version both sides offer", nullptr}},
      {"ssl.enabled.protocols", {kBoth, Rule::kWarn, "librdkafka negotiates the highest TLS version both sides offer", nullptr}},
      {"ssl.keymanager.algorithm", {kBoth, Rule::kWarn, kJvmTls, nullptr}},
      {"ssl.trustmanager.algorithm", {kBoth, Rule::kWarn, kJvmTls, nullptr}},
      {"ssl.secure.random.implementation", {kBoth, Rule::kWarn, kJvmTls, nullptr}},
      {"ssl.provider", {kBoth, Rule::kWarn, kJvmTls, nullptr}},
      {"security.providers", {kBoth, Rule::kWarn, kJvmTls, nullptr}},
      {"sasl.login.refresh.window.factor", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"sasl.login.refresh.window.jitter", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"sasl.login.refresh.min.period.seconds", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"sasl.login.refresh.buffer.seconds", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"sasl.login.connect.timeout.ms", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"sasl.login.read.timeout.ms", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"sasl.login.retry.backoff.ms", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"sasl.login.retry.backoff.max.ms", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"sasl.kerberos.ticket.renew.window.factor", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"sasl.kerberos.ticket.renew.jitter", {kBoth, Rule::kWarn, kLogin, nullptr}},
      {"max.block.ms", {kP, Rule::kWarn, "the DLQ writer waits for queue space itself and bounds each write by its flush timeout", nullptr}},
      {"metadata.max.idle.ms", {kP, Rule::kWarn, "librdkafka keeps metadata of the DLQ topic it writes", nullptr}},
      {"transaction.timeout.ms", {kP, Rule::kWarn, "the DLQ writer is not transactional", nullptr}},
      // Change behaviour, cannot be honoured: refused.
      {"interceptor.classes", {kBoth, Rule::kRefuse, "Java interceptors cannot run in sluice-sink; unset it", nullptr}},
      {"sasl.login.callback.handler.class", {kBoth, Rule::kRefuse, "Java callback handlers cannot run here; use SASL/PLAIN, SCRAM, GSSAPI or librdkafka's OAUTHBEARER oidc settings", nullptr}},
      {"sasl.client.callback.handler.class", {kBoth, Rule::kRefuse, "Java callback handlers cannot run here; use SASL/PLAIN, SCRAM, GSSAPI or librdkafka's OAUTHBEARER oidc settings", nullptr}},
      {"sasl.login.class", {kBoth, Rule::kRefuse, "Java login classes cannot run here; use SASL_JAAS_CONFIG with PlainLoginModule or ScramLoginModule", nullptr}},
      {"ssl.engine.factory.class", {kBoth, Rule::kRefuse, "Java SSL engines cannot run here; librdkafka uses OpenSSL (set SSL_CA_LOCATION etc.)", nullptr}},
      {"transactional.id", {kP, Rule::kRefuse, "the DLQ writer is not transactional; unset it", nullptr}},
  };
  return *rules;
}

// Properties other rules read (sasl.mechanism with a JAAS config, store
// types and passwords with their store).
bool HandledBySibling(const Translation& t, const std::string& java) { return t.Consumed(java); }

absl::Status ApplyRule(Translation& t, const Prop& p, const Rule& r) {
  if ((r.clients & (t.client() == KafkaClient::kConsumer ? kC : kP)) == 0) {
    // Kafka's Java clients log and ignore properties of the other client.
    t.Ignore(p, absl::StrCat("a ", t.client() == KafkaClient::kConsumer ? "producer" : "consumer",
                             " property, meaningless to ", t.ClientName()));
    return absl::OkStatus();
  }
  switch (r.action) {
    case Rule::kRename:
      t.Translate(p, r.arg, p.value, IsSecretJava(p.java) ? "(secret)" : p.value);
      return absl::OkStatus();
    case Rule::kWarn:
      t.Ignore(p, r.arg);
      return absl::OkStatus();
    case Rule::kRefuse:
      return Refuse(p, r.arg);
    case Rule::kCustom:
      return r.handler(t, p);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<KafkaProperties> TranslateKafkaProperties(
    absl::string_view prefix, const std::map<std::string, std::string>& suffixes,
    KafkaClient client) {
  std::map<std::string, Prop> props;
  for (const auto& [suffix, value] : suffixes) {
    std::string java = absl::AsciiStrToLower(suffix);
    for (char& c : java) c = c == '_' ? '.' : c;
    if (java == "log.level") java = "log_level";  // librdkafka's one '_' name
    if (value.empty() && java != "ssl.endpoint.identification.algorithm") continue;
    props[java] = Prop{java, absl::StrCat(prefix, suffix), value};
  }
  Translation t(prefix, client, props);
  const auto& rules = Rules();
  // Rules first (they may consume siblings), then what is left.
  for (const auto& [java, p] : props) {
    auto it = rules.find(java);
    if (it == rules.end()) continue;
    absl::Status s = ApplyRule(t, p, it->second);
    if (!s.ok()) return s;
  }
  rd_kafka_conf_t* scratch = rd_kafka_conf_new();
  std::unique_ptr<rd_kafka_conf_t, void (*)(rd_kafka_conf_t*)> guard(scratch, rd_kafka_conf_destroy);
  char err[512];
  for (const auto& [java, p] : props) {
    if (rules.count(java) > 0) continue;
    if (HandledBySibling(t, java)) {
      // A store type without its location, or a mechanism with a JAAS
      // config, is handled above; a lone sasl.mechanism passes through.
      if (java == "sasl.mechanism" && t.Find("sasl.jaas.config") == nullptr) {
        t.Set(p, java, p.value);
      }
      continue;
    }
    if (java == "ssl.truststore.type" || java == "ssl.truststore.password" ||
        java == "ssl.keystore.type") {
      t.Ignore(p, absl::StrCat("set without ", t.Var(absl::StrCat(
                                   absl::StripSuffix(absl::StripSuffix(java, ".type"), ".password"),
                                   ".location"))));
      continue;
    }
    rd_kafka_conf_res_t r = rd_kafka_conf_set(scratch, java.c_str(), p.value.c_str(), err, sizeof(err));
    if (r == RD_KAFKA_CONF_UNKNOWN) {
      return Refuse(p, absl::StrCat("\"", java, "\" is neither a Kafka Java client property "
                                    "Firehose passes on nor a librdkafka property (check the "
                                    "name; librdkafka's are listed in its CONFIGURATION.md)"));
    }
    t.Set(p, java, p.value);
  }
  // Everything that goes to librdkafka must be accepted by it; errors name
  // the variable the property came from.
  for (const auto& [name, value] : t.out().properties) {
    if (rd_kafka_conf_set(scratch, name.c_str(), value.c_str(), err, sizeof(err)) !=
        RD_KAFKA_CONF_OK) {
      return absl::InvalidArgumentError(
          absl::StrCat(t.origin().at(name), ": librdkafka refuses ", name, ": ", err));
    }
  }
  KafkaProperties out = std::move(t.out());
  std::stable_sort(out.notes.begin(), out.notes.end(),
                   [](const KafkaPropertyNote& a, const KafkaPropertyNote& b) {
                     return a.variable < b.variable;
                   });
  return out;
}

}  // namespace sluice::sink
