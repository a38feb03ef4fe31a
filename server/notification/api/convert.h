// proto <-> domain conversions of the notification API.
#ifndef SLUICE_SERVER_NOTIFICATION_API_CONVERT_H_
#define SLUICE_SERVER_NOTIFICATION_API_CONVERT_H_

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/timestamp.pb.h>

#include "absl/status/statusor.h"
#include "proto/sluice/notification/v1beta1/notification.pb.h"
#include "server/notification/core/model.h"
#include "server/notification/core/silence.h"

namespace sluice::notification::api {

namespace pb = ::sluice::notification::v1beta1;

// Struct → JSON object (an unset Struct is {}).
nlohmann::json StructToJson(const google::protobuf::Struct& s);
// JSON object → Struct; InvalidArgument when `j` is not an object.
absl::Status JsonToStruct(const nlohmann::json& j, google::protobuf::Struct* out);

void SetTime(absl::Time t, google::protobuf::Timestamp* ts);
Labels LabelsFromMap(const google::protobuf::Map<std::string, std::string>& m);
void LabelsToMap(const Labels& l, google::protobuf::Map<std::string, std::string>* m);

void ToProto(const Receiver& r, pb::Receiver* out);
void ToProto(const Subscription& s, pb::Subscription* out);
void ToProto(const Template& t, pb::Template* out);
void ToProto(const Message& m, pb::NotificationMessage* out);
void ToProto(const Alert& a, pb::Alert* out);
void ToProto(const Silence& s, pb::Silence* out);

std::vector<SubscriptionReceiver> FromProto(
    const google::protobuf::RepeatedPtrField<pb::SubscriptionReceiver>& rs);
std::vector<TemplateVariable> FromProto(
    const google::protobuf::RepeatedPtrField<pb::TemplateVariable>& vs);

// The webhook body → an AlertGroup. InvalidArgument for a bad timestamp.
absl::StatusOr<AlertGroup> FromProto(const pb::CreateAlertsRequest& req);
// A CreateSilence body → a Silence (validated by SilenceService::Create).
Silence FromProto(const pb::CreateSilenceRequest& req);
// ListSilences query → a filter.
SilenceFilter FromProto(const pb::ListSilencesRequest& req);
// ListAlerts query → a filter (start/end: unix seconds, 0 = unbounded).
AlertFilter FromProto(const pb::ListAlertsRequest& req);

}  // namespace sluice::notification::api

#endif  // SLUICE_SERVER_NOTIFICATION_API_CONVERT_H_
