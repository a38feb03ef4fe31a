// Receiver, subscription and template management: validation, secrets at
// rest and masking, built-in templates. The gRPC layer calls these.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_CATALOG_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_CATALOG_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/crypto.h"
#include "server/notification/core/model.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/core/repository.h"

namespace sluice::notification {

// Encrypts, decrypts and masks the secret keys of receiver configurations.
class SecretCodec {
 public:
  SecretCodec(const ReceiverPlugins* plugins, const Crypter* crypter)
      : plugins_(plugins), crypter_(crypter) {}
  // Encrypts plain-text secret values of a `type` configuration stored at
  // `place` ("receivers/<id>"); each value is bound to "<place>/<key>".
  absl::StatusOr<nlohmann::json> Seal(absl::string_view type, nlohmann::json config,
                                      absl::string_view place) const;
  // Decrypts encrypted secret values stored at `place` (FailedPrecondition
  // on a wrong key or a value moved from another place).
  absl::StatusOr<nlohmann::json> Open(absl::string_view type, nlohmann::json config,
                                      absl::string_view place) const;
  // InvalidArgument "<field_prefix><key>: ..." when a secret value of a
  // client's `config` is a ciphertext (review M1: the server would decrypt a
  // leaked ciphertext for whoever sends it back).
  absl::Status RejectCiphertexts(absl::string_view type, const nlohmann::json& config,
                                 absl::string_view field_prefix) const;
  // Replaces secret values with "*****".
  nlohmann::json Mask(absl::string_view type, nlohmann::json config) const;
  // Secret values equal to "*****" in `config` take `stored`'s value.
  nlohmann::json KeepMasked(absl::string_view type, nlohmann::json config,
                            const nlohmann::json& stored) const;
  // `message` with every plain-text secret value of `opened` (a decrypted
  // `type` configuration; values of 4+ characters) replaced by "*****", for
  // errors that may quote a configuration.
  std::string Redact(absl::string_view type, const nlohmann::json& opened,
                     absl::string_view message) const;

 private:
  std::vector<std::string> Keys(absl::string_view type) const;
  const ReceiverPlugins* plugins_;
  const Crypter* crypter_;
};

// `base` (a receiver configuration) with every key of `override` (a
// subscription's configuration; ignored unless an object) replaced.
nlohmann::json MergeOverride(nlohmann::json base, const nlohmann::json& override);

// The rule that keeps stored secrets bound to their destination: for a
// receiver type with secrets, a subscription override may not set any of
// the type's DestinationKeys() to a value other than the receiver's.
// `base` and `override` are decrypted; "*****" values count as unchanged.
// InvalidArgument "<field_prefix><key>: ..." otherwise.
absl::Status OverrideKeepsDestination(const ReceiverPlugin& plugin, absl::string_view type,
                                      const nlohmann::json& base, const nlohmann::json& override,
                                      absl::string_view field_prefix);

// Where receiver `id`'s secrets are stored (their ciphertexts' context).
std::string ReceiverPlace(uint64_t id);

class ReceiverService {
 public:
  ReceiverService(ReceiverRepository* repo, const ReceiverPlugins* plugins, const SecretCodec* codec)
      : repo_(repo), plugins_(plugins), codec_(codec) {}
  // InvalidArgument for a bad name, an unknown type or a bad configuration
  // (the type's ValidateConfig); FailedPrecondition for a type this server
  // disables (e.g. `file` without notification.file_receiver_dir).
  absl::StatusOr<uint64_t> Create(Receiver r, absl::string_view actor);
  // Receivers with effective labels (id/type added) and masked secrets.
  absl::StatusOr<Receiver> Get(uint64_t id);
  // One page of the receivers whose labels (with the implicit id and type)
  // contain `labels`; `total` (may be null) counts them all.
  absl::StatusOr<std::vector<Receiver>> List(const Labels& labels, const Page& page = {},
                                             int* total = nullptr);
  // `r.type` empty keeps the type; a different type is InvalidArgument.
  // "*****" secret values keep the stored ones, except that when a
  // destination key (url, api_url) changes, every stored secret must be
  // supplied again in plain text: "*****", an omitted secret or a "v1:"
  // ciphertext is then InvalidArgument naming the secret, so an old secret
  // is never sent to a new destination. The result is validated like Create.
  absl::Status Update(Receiver r, absl::string_view actor);
  absl::Status Delete(uint64_t id, absl::string_view actor);

 private:
  absl::Status Validate(const Receiver& r) const;
  // The type's PrepareConfig on a client's configuration (ciphertexts
  // refused first); a no-op for an unknown type (Validate names it).
  absl::Status Prepare(Receiver* r) const;
  // InvalidArgument "parent_id: ..." unless r.parent_id names an existing
  // receiver of the type's ParentType(), or is 0 for a type without one (as
  // Siren's core/receiver/service.go validateParent).
  absl::Status ValidateParent(const Receiver& r) const;
  Receiver Present(Receiver r) const;
  ReceiverRepository* repo_;
  const ReceiverPlugins* plugins_;
  const SecretCodec* codec_;
};

class SubscriptionService {
 public:
  SubscriptionService(SubscriptionRepository* repo, ReceiverRepository* receivers,
                      const ReceiverPlugins* plugins, const SecretCodec* codec)
      : repo_(repo), receivers_(receivers), plugins_(plugins), codec_(codec) {}
  // InvalidArgument for a bad urn; NotFound for an unknown receiver id. Each
  // receiver's `configuration` override, merged over the receiver's
  // configuration, must pass the type's ValidateConfig (InvalidArgument
  // "receivers[<i>].configuration.<key>: ...", or FailedPrecondition for a
  // disabled type), and may not change a destination key of a type with
  // secrets (OverrideKeepsDestination). The same checks apply to Update.
  absl::StatusOr<uint64_t> Create(Subscription s, absl::string_view actor);
  absl::StatusOr<Subscription> Get(uint64_t id);
  // One page; `total` (may be null) counts every match.
  absl::StatusOr<std::vector<Subscription>> List(uint64_t namespace_id, const Labels& match,
                                                 const Page& page = {}, int* total = nullptr);
  // One page of the subscriptions passing `filter` (see SubscriptionFilter).
  absl::StatusOr<std::vector<Subscription>> List(const SubscriptionFilter& filter,
                                                 const Page& page, int* total = nullptr);
  absl::Status Update(Subscription s, absl::string_view actor);
  absl::Status Delete(uint64_t id, absl::string_view actor);

  // Subscription-receiver relations (Siren's subscription receivers): each
  // rewrites the subscription through Update's checks. NotFound for an
  // unknown subscription or (Update/Remove) a receiver not in it;
  // AlreadyExists when Add finds the receiver already there; Remove of the
  // last receiver is FailedPrecondition (delete the subscription instead).
  absl::Status AddReceiver(uint64_t subscription_id, uint64_t receiver_id, const Labels& labels,
                           absl::string_view actor);
  absl::Status UpdateReceiverLabels(uint64_t subscription_id, uint64_t receiver_id,
                                    const Labels& labels, absl::string_view actor);
  absl::Status RemoveReceiver(uint64_t subscription_id, uint64_t receiver_id,
                              absl::string_view actor);

 private:
  absl::Status Prepare(Subscription& s);
  Subscription Present(Subscription s);
  SubscriptionRepository* repo_;
  ReceiverRepository* receivers_;
  const ReceiverPlugins* plugins_;
  const SecretCodec* codec_;
};

class TemplateService {
 public:
  explicit TemplateService(TemplateRepository* repo) : repo_(repo) {}
  // InvalidArgument for a bad name or a body that does not parse;
  // FailedPrecondition for a built-in name.
  absl::Status Upsert(Template t, absl::string_view actor);
  // Built-in or stored; NotFound otherwise.
  absl::StatusOr<Template> Get(absl::string_view name);
  // Built-in and stored templates with `tag` ("" = all), by name.
  // One page of the built-in and stored templates with `tag`, by name;
  // `total` (may be null) counts them all.
  absl::StatusOr<std::vector<Template>> List(absl::string_view tag, const Page& page = {},
                                             int* total = nullptr);
  // FailedPrecondition for a built-in template.
  absl::Status Delete(absl::string_view name, absl::string_view actor);
  // Renders `name` with `variables` for `receiver_type`, after `authorize`
  // (e.g. NotificationService::CheckRender) accepts the template: its error
  // is returned as is. NotFound for an unknown template.
  absl::StatusOr<std::string> Render(absl::string_view name, const nlohmann::json& variables,
                                     absl::string_view receiver_type,
                                     const std::function<absl::Status(const Template&)>& authorize);

 private:
  TemplateRepository* repo_;
};

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_CATALOG_H_
