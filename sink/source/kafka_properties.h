// Firehose's Kafka client settings, translated for librdkafka.
//
// Firehose hands every SOURCE_KAFKA_CONSUMER_CONFIG_<X> and DLQ_KAFKA_<X>
// variable to Kafka's Java client as property "<x>" (lower-cased, '_' ->
// '.'; Firehose's parser/KafkaEnvironmentVariables.java and
// utils/KafkaUtils.java getKafkaProducer). Many Java names mean nothing to
// librdkafka, or mean something else. This file holds the one table that
// says, for each Java name Firehose users set, what sluice-sink does:
//   - translate it to librdkafka's name (and unit, or value syntax);
//   - accept it with one warning line, when ignoring it changes nothing
//     delivered (JVM-only tuning such as default.api.timeout.ms);
//   - refuse to start, naming the variable and what to set instead, when it
//     changes behaviour and librdkafka cannot honour it (a JKS truststore, a
//     Kerberos JAAS module, a custom serializer).
// A name neither Kafka client knows is refused, naming the variable. Every
// resulting property is checked with librdkafka's rd_kafka_conf_set, so a
// bad value is refused at start naming the variable too.
#ifndef SLUICE_SINK_SOURCE_KAFKA_PROPERTIES_H_
#define SLUICE_SINK_SOURCE_KAFKA_PROPERTIES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice::sink {

// Which Kafka client the properties configure: the source consumer
// (SOURCE_KAFKA_CONSUMER_CONFIG_*) or the DLQ producer (DLQ_KAFKA_*).
enum class KafkaClient { kConsumer, kProducer };

// One start-up log line about a Firehose (Java client) property. Texts never
// contain secret values (passwords, JAAS options).
struct KafkaPropertyNote {
  enum class Kind {
    kTranslated,  // set as a librdkafka property with another name or value
    kIgnored,     // accepted, no effect here (a warning)
  };
  Kind kind;
  std::string variable;  // e.g. "SOURCE_KAFKA_CONSUMER_CONFIG_FETCH_MAX_WAIT_MS"
  std::string text;      // e.g. "fetch.max.wait.ms -> librdkafka fetch.wait.max.ms=100"
};

// The librdkafka properties and the notes for the start-up log.
struct KafkaProperties {
  std::map<std::string, std::string> properties;  // librdkafka name -> value
  std::vector<KafkaPropertyNote> notes;           // in variable-name order
};

// Translates `suffixes` (the <X> of `prefix`<X> -> value, e.g. from
// Env::WithPrefix("SOURCE_KAFKA_CONSUMER_CONFIG_")) for `client`. Empty
// values are unset (Env's rule), except SSL_ENDPOINT_IDENTIFICATION_ALGORITHM,
// where Java's "" (no hostname check) becomes librdkafka's "none". The caller
// removes suffixes it reads itself (MAX_POLL_RECORDS, ...).
// InvalidArgument names the variable (`prefix` + suffix) and says what to set
// instead. Reads the truststore/keystore file only to tell PEM from JKS or
// PKCS12 when no *_TYPE is set.
absl::StatusOr<KafkaProperties> TranslateKafkaProperties(
    absl::string_view prefix, const std::map<std::string, std::string>& suffixes,
    KafkaClient client);

// One Java JAAS login module entry (sasl.jaas.config), as Kafka's
// JaasConfig parses it: `<class> <flag> [<key>=<value>]... ;`, values are
// words or double-quoted strings with backslash escapes.
struct JaasEntry {
  std::string login_module;                    // e.g. org.apache...PlainLoginModule
  std::string flag;                            // required | requisite | sufficient | optional
  std::map<std::string, std::string> options;  // e.g. username, password
};

// Parses `text`; exactly one entry (Kafka clients refuse more). Errors never
// quote option values (they hold passwords).
absl::StatusOr<JaasEntry> ParseJaasConfig(absl::string_view text);

// SOURCE_KAFKA_TOPIC as Firehose reads it: a Java regular expression
// (Pattern.compile) that must match a whole topic name (Kafka's Java
// consumer subscribes with pattern.matcher(topic).matches()). Returns what
// to hand librdkafka's rd_kafka_subscribe: the name itself when it holds no
// regex syntax ([A-Za-z0-9_-] only), else an anchored POSIX extended
// expression "^(...)$" (librdkafka subscribes by regex when a topic starts
// with '^', and compiles it with regcomp(REG_EXTENDED)). \d, \w, \D, \W,
// (?:...), named groups (?<n>...), lazy quantifiers (same whole-string
// matches) and Java escapes inside [...] are translated; constructs the two
// dialects read differently are InvalidArgument naming the construct:
// lookaround, possessive quantifiers, \Q..\E, back references, inline flags
// (?i), atomic groups, class intersections (&&), \b, \s, \p{..} and the like.
absl::StatusOr<std::string> TopicSubscription(absl::string_view java_regex);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SOURCE_KAFKA_PROPERTIES_H_
