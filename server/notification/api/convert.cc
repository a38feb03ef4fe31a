#include "server/notification/api/convert.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"

namespace sluice::notification::api {

nlohmann::json StructToJson(const google::protobuf::Struct& s) {
  std::string text;
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(s, &text, opts).ok()) {
    return nlohmann::json::object();
  }
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

absl::Status JsonToStruct(const nlohmann::json& j, google::protobuf::Struct* out) {
  if (!j.is_object()) return absl::InvalidArgumentError("expected a JSON object");
  auto st = google::protobuf::util::JsonStringToMessage(j.dump(), out);
  if (!st.ok()) return absl::InternalError(std::string(st.message()));
  return absl::OkStatus();
}

void SetTime(absl::Time t, google::protobuf::Timestamp* ts) {
  int64_t us = absl::ToUnixMicros(t);
  ts->set_seconds(us / 1000000);
  ts->set_nanos(static_cast<int32_t>((us % 1000000) * 1000));
  if (ts->nanos() < 0) {
    ts->set_seconds(ts->seconds() - 1);
    ts->set_nanos(ts->nanos() + 1000000000);
  }
}

Labels LabelsFromMap(const google::protobuf::Map<std::string, std::string>& m) {
  return Labels(m.begin(), m.end());
}

void LabelsToMap(const Labels& l, google::protobuf::Map<std::string, std::string>* m) {
  for (const auto& [k, v] : l) (*m)[k] = v;
}

void ToProto(const Receiver& r, pb::Receiver* out) {
  out->set_id(r.id);
  out->set_name(r.name);
  out->set_type(r.type);
  LabelsToMap(r.labels, out->mutable_labels());
  (void)JsonToStruct(r.configurations, out->mutable_configurations());
  for (const auto& a : r.allowed_senders) out->add_allowed_senders(a);
  out->set_parent_id(r.parent_id);
  SetTime(r.created_at, out->mutable_created_at());
  SetTime(r.updated_at, out->mutable_updated_at());
}

void ToProto(const Subscription& s, pb::Subscription* out) {
  out->set_id(s.id);
  out->set_urn(s.urn);
  out->set_namespace_(s.namespace_id);
  for (const auto& r : s.receivers) {
    auto* pr = out->add_receivers();
    pr->set_id(r.id);
    (void)JsonToStruct(r.configuration, pr->mutable_configuration());
    LabelsToMap(r.labels, pr->mutable_labels());
  }
  LabelsToMap(s.match, out->mutable_match());
  for (const auto& a : s.allowed_senders) out->add_allowed_senders(a);
  (void)JsonToStruct(s.metadata.is_object() ? s.metadata : nlohmann::json::object(),
                     out->mutable_metadata());
  out->set_created_by(s.created_by);
  out->set_updated_by(s.updated_by);
  SetTime(s.created_at, out->mutable_created_at());
  SetTime(s.updated_at, out->mutable_updated_at());
}

void ToProto(const Template& t, pb::Template* out) {
  out->set_name(t.name);
  out->set_body(t.body);
  for (const auto& tag : t.tags) out->add_tags(tag);
  for (const auto& v : t.variables) {
    auto* pv = out->add_variables();
    pv->set_name(v.name);
    pv->set_type(v.type);
    pv->set_default_(v.default_value);
    pv->set_description(v.description);
  }
  SetTime(t.created_at, out->mutable_created_at());
  SetTime(t.updated_at, out->mutable_updated_at());
  out->set_builtin(t.builtin);
  out->set_engine(t.engine);
}

void ToProto(const Message& m, pb::NotificationMessage* out) {
  out->set_id(m.id);
  out->set_notification_id(m.notification_id);
  out->set_receiver_id(m.receiver_id);
  out->set_receiver_type(m.receiver_type);
  out->set_status(m.status);
  out->set_try_count(m.try_count);
  out->set_max_tries(m.max_tries);
  out->set_last_error(m.last_error);
  SetTime(m.created_at, out->mutable_created_at());
  SetTime(m.updated_at, out->mutable_updated_at());
  SetTime(m.expire_at, out->mutable_expire_at());
  SetTime(m.next_attempt_at, out->mutable_next_attempt_at());
}

void ToProto(const Alert& a, pb::Alert* out) {
  out->set_id(a.id);
  out->set_provider_type(a.provider_type);
  out->set_provider_id(a.provider_id);
  out->set_status(a.status);
  LabelsToMap(a.labels, out->mutable_labels());
  LabelsToMap(a.annotations, out->mutable_annotations());
  SetTime(a.starts_at, out->mutable_starts_at());
  if (a.ends_at) SetTime(*a.ends_at, out->mutable_ends_at());
  out->set_generator_url(a.generator_url);
  out->set_fingerprint(a.fingerprint);
  out->set_group_key(a.group_key);
  out->set_notification_id(a.notification_id);
  SetTime(a.created_at, out->mutable_created_at());
  out->set_namespace_id(a.namespace_id);
  out->set_resource_name(a.resource_name);
  out->set_metric_name(a.metric_name);
  out->set_metric_value(a.metric_value);
  out->set_severity(a.severity);
  out->set_rule(a.rule);
  // Unset (an alert not yet stored): starts_at, as the store does; never an
  // infinite time, which no Timestamp can print.
  absl::Time triggered = a.triggered_at == absl::InfinitePast() ? a.starts_at : a.triggered_at;
  if (triggered != absl::InfinitePast()) SetTime(triggered, out->mutable_triggered_at());
  out->set_silence_status(a.silence_status);
  for (const std::string& id : a.silence_ids) out->add_silence_ids(id);
}

void ToProto(const Silence& s, pb::Silence* out) {
  out->set_id(s.id);
  out->set_namespace_id(s.namespace_id);
  out->set_type(s.type);
  out->set_target_id(s.target_id);
  (void)JsonToStruct(s.target_expression, out->mutable_target_expression());
  SetTime(s.created_at, out->mutable_created_at());
  if (s.deleted_at) SetTime(*s.deleted_at, out->mutable_deleted_at());
  out->set_creator(s.creator);
  out->set_comment(s.comment);
}

Silence FromProto(const pb::CreateSilenceRequest& req) {
  Silence s;
  s.namespace_id = req.namespace_id();
  s.type = req.type();
  s.target_id = req.target_id();
  s.target_expression = StructToJson(req.target_expression());
  s.comment = req.comment();
  return s;
}

SilenceFilter FromProto(const pb::ListSilencesRequest& req) {
  SilenceFilter f;
  f.namespace_id = req.namespace_id();
  f.subscription_id = req.subscription_id();
  f.match = LabelsFromMap(req.match());
  f.subscription_match = LabelsFromMap(req.subscription_match());
  f.include_expired = req.include_expired();
  return f;
}

AlertFilter FromProto(const pb::ListAlertsRequest& req) {
  AlertFilter f;
  f.provider_type = req.provider_type();
  f.provider_id = req.provider_id();
  f.namespace_id = req.namespace_id();
  f.resource_name = req.resource_name();
  f.silence_id = req.silence_id();
  if (req.start_time() > 0) f.from = absl::FromUnixSeconds(req.start_time());
  if (req.end_time() > 0) f.to = absl::FromUnixSeconds(req.end_time());
  return f;
}

std::vector<SubscriptionReceiver> FromProto(
    const google::protobuf::RepeatedPtrField<pb::SubscriptionReceiver>& rs) {
  std::vector<SubscriptionReceiver> out;
  for (const auto& r : rs) {
    SubscriptionReceiver sr;
    sr.id = r.id();
    sr.configuration = StructToJson(r.configuration());
    sr.labels = LabelsFromMap(r.labels());
    out.push_back(std::move(sr));
  }
  return out;
}

std::vector<TemplateVariable> FromProto(
    const google::protobuf::RepeatedPtrField<pb::TemplateVariable>& vs) {
  std::vector<TemplateVariable> out;
  for (const auto& v : vs) out.push_back({v.name(), v.type(), v.default_(), v.description()});
  return out;
}

namespace {

// Alertmanager times are RFC 3339; "0001-01-01T00:00:00Z" means unset. A
// time must also fit google.protobuf.Timestamp (years 0001-9999), which
// every reply carrying it uses: ParseTime's %Y takes any year ("0000",
// "-1", "10000"), and one such alert made GET /alerts unprintable for the
// gateway (found by scripts/fuzz-requests.sh).
absl::StatusOr<std::optional<absl::Time>> ParseAlertTime(const std::string& s,
                                                         absl::string_view field) {
  if (s.empty() || s.rfind("0001-01-01", 0) == 0) return std::optional<absl::Time>();
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, s, &t, &err)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": bad RFC 3339 time \"", s, "\": ", err));
  }
  using google::protobuf::util::TimeUtil;
  if (t < absl::FromUnixSeconds(TimeUtil::kTimestampMinSeconds) ||
      t >= absl::FromUnixSeconds(TimeUtil::kTimestampMaxSeconds + 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": \"", s, "\" is outside the years 0001 to 9999"));
  }
  return std::optional<absl::Time>(t);
}

nlohmann::json LabelsJson(const google::protobuf::Map<std::string, std::string>& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

}  // namespace

absl::StatusOr<AlertGroup> FromProto(const pb::CreateAlertsRequest& req) {
  AlertGroup g;
  g.provider_type = req.provider_type();
  g.provider_id = req.provider_id();
  g.namespace_id = req.namespace_id();
  g.version = req.version();
  g.group_key = req.group_key();
  g.receiver = req.receiver();
  g.status = req.status();
  g.external_url = req.external_url();
  g.group_labels = LabelsFromMap(req.group_labels());
  g.common_labels = LabelsFromMap(req.common_labels());
  g.common_annotations = LabelsFromMap(req.common_annotations());
  nlohmann::json alerts = nlohmann::json::array();
  for (int i = 0; i < req.alerts_size(); ++i) {
    const auto& pa = req.alerts(i);
    Alert a;
    a.status = pa.status().empty() ? req.status() : pa.status();
    a.labels = LabelsFromMap(pa.labels());
    a.annotations = LabelsFromMap(pa.annotations());
    auto starts = ParseAlertTime(pa.starts_at(), absl::StrCat("alerts[", i, "].startsAt"));
    if (!starts.ok()) return starts.status();
    if (*starts) a.starts_at = **starts;
    auto ends = ParseAlertTime(pa.ends_at(), absl::StrCat("alerts[", i, "].endsAt"));
    if (!ends.ok()) return ends.status();
    a.ends_at = *ends;
    a.generator_url = pa.generator_url();
    a.fingerprint = pa.fingerprint();
    g.alerts.push_back(std::move(a));
    alerts.push_back({{"status", pa.status()},
                      {"labels", LabelsJson(pa.labels())},
                      {"annotations", LabelsJson(pa.annotations())},
                      {"startsAt", pa.starts_at()},
                      {"endsAt", pa.ends_at()},
                      {"generatorURL", pa.generator_url()},
                      {"fingerprint", pa.fingerprint()}});
  }
  g.raw = {{"version", req.version()},
           {"groupKey", req.group_key()},
           {"truncatedAlerts", req.truncated_alerts()},
           {"status", req.status()},
           {"receiver", req.receiver()},
           {"groupLabels", LabelsJson(req.group_labels())},
           {"commonLabels", LabelsJson(req.common_labels())},
           {"commonAnnotations", LabelsJson(req.common_annotations())},
           {"externalURL", req.external_url()},
           {"alerts", alerts}};
  return g;
}

}  // namespace sluice::notification::api
