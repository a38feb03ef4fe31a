// Siren's message shapes (gotocompany.siren.v1beta1 / v1) <-> the notification
// domain. Field meanings follow goto/siren's internal/api/v1beta1 handlers.
#ifndef SLUICE_SERVER_NOTIFICATION_SIREN_SIREN_CONVERT_H_
#define SLUICE_SERVER_NOTIFICATION_SIREN_SIREN_CONVERT_H_

#include "absl/status/statusor.h"
#include "proto/sluice/siren/v1/siren.pb.h"
#include "proto/sluice/siren/v1beta1/siren.pb.h"
#include "server/notification/core/model.h"
#include "server/notification/core/repository.h"

namespace sluice::notification::siren {

namespace spb = ::gotocompany::siren::v1beta1;
namespace spb1 = ::gotocompany::siren::v1;

// A receiver as Siren shows it: the user labels only (Sluice's implicit
// `id`/`type` labels dropped), `data` empty, parent_id 0 until receivers
// carry one.
void ToSiren(const Receiver& r, spb::Receiver* out);
// Subscription receivers carry their relation labels as
// subscription_receiver_labels.
void ToSiren(const Subscription& s, spb::Subscription* out);
void ToSiren(const Subscription& s, spb1::Subscription* out);
void ToSiren(uint64_t subscription_id, const SubscriptionReceiver& r,
             spb::SubscriptionReceiverRelation* out);
// Siren's Template: id 0 (Sluice keys templates by name).
void ToSiren(const Template& t, spb::Template* out);
// id, notification_ids [notification_id], `details` {receiver_id},
// expired_at = expire_at, retryable while the message may still be tried.
void ToSiren(const Message& m, spb::NotificationMessage* out);
void ToSiren(const Notification& n, spb::Notification* out);
// Siren's alert fields as the core stored them (DeriveSirenFields);
// provider_id is Sluice's provider id when it is a number (else 0);
// updated_at is created_at.
void ToSiren(const Alert& a, spb::Alert* out);

std::vector<SubscriptionReceiver> FromSiren(
    const google::protobuf::RepeatedPtrField<spb::ReceiverMetadata>& rs);
std::vector<TemplateVariable> FromSiren(
    const google::protobuf::RepeatedPtrField<spb::TemplateVariables>& vs);

// Siren's ListSubscriptions filters → SubscriptionFilter (v1beta1 and v1
// share them). InvalidArgument... none: silence_id is checked by the caller.
template <typename Req>
SubscriptionFilter FilterOf(const Req& req) {
  SubscriptionFilter f;
  f.namespace_id = req.namespace_id();
  f.match = Labels(req.match().begin(), req.match().end());
  if (!req.notification_match().empty()) {
    f.notification_match = Labels(req.notification_match().begin(), req.notification_match().end());
  }
  f.metadata = Labels(req.metadata().begin(), req.metadata().end());
  f.receiver_id = req.receiver_id();
  f.receiver_labels = Labels(req.subscription_receiver_labels().begin(),
                             req.subscription_receiver_labels().end());
  return f;
}

// The Alertmanager webhook payload (a JSON object) → an AlertGroup of
// provider `type`/`id`. InvalidArgument naming the field that does not fit
// the webhook's shape (version 4), e.g. a bad `alerts[0].startsAt`.
absl::StatusOr<AlertGroup> AlertGroupFromBody(const google::protobuf::Struct& body,
                                              const std::string& type, const std::string& id);

}  // namespace sluice::notification::siren

#endif  // SLUICE_SERVER_NOTIFICATION_SIREN_SIREN_CONVERT_H_
