#include "server/notification/siren/siren_convert.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/notification/api/convert.h"

namespace sluice::notification::siren {

using api::JsonToStruct;
using api::LabelsToMap;
using api::SetTime;

void ToSiren(const Receiver& r, spb::Receiver* out) {
  out->set_id(r.id);
  out->set_name(r.name);
  out->set_type(r.type);
  // ReceiverService::Get adds id=<id> and type=<type>, as Siren's receiver
  // does (core/receiver/receiver.go, LabelKeyID and LabelKeyType), and Siren
  // answers them: the transcript of the real Siren shows both.
  for (const auto& [k, v] : r.labels) (*out->mutable_labels())[k] = v;
  (void)JsonToStruct(r.configurations, out->mutable_configurations());
  out->mutable_data();
  SetTime(r.created_at, out->mutable_created_at());
  SetTime(r.updated_at, out->mutable_updated_at());
  out->set_parent_id(r.parent_id);
}

void ToSiren(const Subscription& s, spb::Subscription* out) {
  out->set_id(s.id);
  out->set_urn(s.urn);
  out->set_namespace_(s.namespace_id);
  for (const auto& r : s.receivers) {
    auto* pr = out->add_receivers();
    pr->set_id(r.id);
    (void)JsonToStruct(r.configuration, pr->mutable_configuration());
    LabelsToMap(r.labels, pr->mutable_subscription_receiver_labels());
  }
  LabelsToMap(s.match, out->mutable_match());
  SetTime(s.created_at, out->mutable_created_at());
  SetTime(s.updated_at, out->mutable_updated_at());
  (void)JsonToStruct(s.metadata.is_object() ? s.metadata : nlohmann::json::object(),
                     out->mutable_metadata());
  out->set_created_by(s.created_by);
  out->set_updated_by(s.updated_by);
}

void ToSiren(const Subscription& s, spb1::Subscription* out) {
  out->set_id(s.id);
  out->set_urn(s.urn);
  out->set_namespace_(s.namespace_id);
  for (const auto& r : s.receivers) {
    auto* rel = out->add_receivers_relation();
    rel->set_subscription_id(s.id);
    rel->set_receiver_id(r.id);
    LabelsToMap(r.labels, rel->mutable_labels());
    SetTime(r.created_at, rel->mutable_created_at());
    SetTime(r.updated_at, rel->mutable_updated_at());
  }
  LabelsToMap(s.match, out->mutable_match());
  SetTime(s.created_at, out->mutable_created_at());
  SetTime(s.updated_at, out->mutable_updated_at());
  (void)JsonToStruct(s.metadata.is_object() ? s.metadata : nlohmann::json::object(),
                     out->mutable_metadata());
  out->set_created_by(s.created_by);
  out->set_updated_by(s.updated_by);
}

void ToSiren(uint64_t subscription_id, const SubscriptionReceiver& r,
             spb::SubscriptionReceiverRelation* out) {
  out->set_subscription_id(subscription_id);
  out->set_receiver_id(r.id);
  LabelsToMap(r.labels, out->mutable_labels());
  SetTime(r.created_at, out->mutable_created_at());
  SetTime(r.updated_at, out->mutable_updated_at());
}

void ToSiren(const Template& t, spb::Template* out) {
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
}

void ToSiren(const Message& m, spb::NotificationMessage* out) {
  out->set_id(std::to_string(m.id));
  out->add_notification_ids(std::to_string(m.notification_id));
  out->set_status(m.status);
  out->set_receiver_type(m.receiver_type);
  (void)JsonToStruct({{"receiver_id", m.receiver_id}}, out->mutable_details());
  out->set_last_error(m.last_error);
  out->set_max_tries(static_cast<uint64_t>(m.max_tries));
  out->set_try_count(static_cast<uint64_t>(m.try_count));
  out->set_retryable(m.status == kEnqueued || m.status == kPending);
  SetTime(m.expire_at, out->mutable_expired_at());
  SetTime(m.created_at, out->mutable_created_at());
  SetTime(m.updated_at, out->mutable_updated_at());
  out->mutable_configs();
}

void ToSiren(const Notification& n, spb::Notification* out) {
  out->set_id(std::to_string(n.id));
  // Siren's types: "alert" for the hook's notifications, "event" for posted ones.
  out->set_type(n.source == "alert" ? "alert" : "event");
  (void)JsonToStruct(n.data.is_object() ? n.data : nlohmann::json::object(), out->mutable_data());
  LabelsToMap(n.labels, out->mutable_labels());
  out->set_template_(n.template_name);
  SetTime(n.created_at, out->mutable_create_at());
}

void ToSiren(const Alert& a, spb::Alert* out) {
  out->set_id(a.id);
  uint64_t provider = 0;
  if (absl::SimpleAtoi(a.provider_id, &provider)) out->set_provider_id(provider);
  out->set_resource_name(a.resource_name);
  out->set_metric_name(a.metric_name);
  out->set_metric_value(a.metric_value);
  out->set_severity(a.severity);
  out->set_rule(a.rule);
  if (a.triggered_at != absl::InfinitePast()) SetTime(a.triggered_at, out->mutable_triggered_at());
  out->set_namespace_id(a.namespace_id);
  out->set_silence_status(a.silence_status);
  SetTime(a.created_at, out->mutable_created_at());
  SetTime(a.created_at, out->mutable_updated_at());
  out->set_group_key(a.group_key);
  out->set_status(a.status);
  LabelsToMap(a.annotations, out->mutable_annotations());
  LabelsToMap(a.labels, out->mutable_labels());
  out->set_generator_url(a.generator_url);
  out->set_fingerprint(a.fingerprint);
}

std::vector<SubscriptionReceiver> FromSiren(
    const google::protobuf::RepeatedPtrField<spb::ReceiverMetadata>& rs) {
  std::vector<SubscriptionReceiver> out;
  for (const auto& r : rs) {
    SubscriptionReceiver sr;
    sr.id = r.id();
    sr.configuration = api::StructToJson(r.configuration());
    sr.labels = Labels(r.subscription_receiver_labels().begin(),
                       r.subscription_receiver_labels().end());
    out.push_back(std::move(sr));
  }
  return out;
}

std::vector<TemplateVariable> FromSiren(
    const google::protobuf::RepeatedPtrField<spb::TemplateVariables>& vs) {
  std::vector<TemplateVariable> out;
  for (const auto& v : vs) out.push_back({v.name(), v.type(), v.default_(), v.description()});
  return out;
}

absl::StatusOr<AlertGroup> AlertGroupFromBody(const google::protobuf::Struct& body,
                                              const std::string& type, const std::string& id) {
  std::string text;
  if (!google::protobuf::util::MessageToJsonString(body, &text).ok()) {
    return absl::InvalidArgumentError("body: not a JSON object");
  }
  // The webhook's shape is the /api hook's request message (version 4);
  // a field it lacks is refused by name, as the /api hook refuses it.
  api::pb::CreateAlertsRequest req;
  auto st = google::protobuf::util::JsonStringToMessage(text, &req);
  if (!st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("body: ", std::string(st.message())));
  }
  req.set_provider_type(type);
  req.set_provider_id(id);
  return api::FromProto(req);
}

}  // namespace sluice::notification::siren
