// Receiver, subscription and template management: validation, secrets at
// rest and masking, built-in templates. The gRPC layer calls these.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_CATALOG_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_CATALOG_H_

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
  // Encrypts plain-text secret values of a `type` configuration.
  absl::StatusOr<nlohmann::json> Seal(absl::string_view type, nlohmann::json config) const;
  // Decrypts encrypted secret values (FailedPrecondition on a wrong key).
  absl::StatusOr<nlohmann::json> Open(absl::string_view type, nlohmann::json config) const;
  // Replaces secret values with "*****".
  nlohmann::json Mask(absl::string_view type, nlohmann::json config) const;
  // Secret values equal to "*****" in `config` take `stored`'s value.
  nlohmann::json KeepMasked(absl::string_view type, nlohmann::json config,
                            const nlohmann::json& stored) const;

 private:
  std::vector<std::string> Keys(absl::string_view type) const;
  const ReceiverPlugins* plugins_;
  const Crypter* crypter_;
};

class ReceiverService {
 public:
  ReceiverService(ReceiverRepository* repo, const ReceiverPlugins* plugins, const SecretCodec* codec)
      : repo_(repo), plugins_(plugins), codec_(codec) {}
  // InvalidArgument for a bad name, an unknown type or a bad configuration.
  absl::StatusOr<uint64_t> Create(Receiver r, absl::string_view actor);
  // Receivers with effective labels (id/type added) and masked secrets.
  absl::StatusOr<Receiver> Get(uint64_t id);
  absl::StatusOr<std::vector<Receiver>> List(const Labels& labels);
  // `r.type` empty keeps the type; a different type is InvalidArgument.
  absl::Status Update(Receiver r, absl::string_view actor);
  absl::Status Delete(uint64_t id, absl::string_view actor);

 private:
  absl::Status Validate(const Receiver& r) const;
  Receiver Present(Receiver r) const;
  ReceiverRepository* repo_;
  const ReceiverPlugins* plugins_;
  const SecretCodec* codec_;
};

class SubscriptionService {
 public:
  SubscriptionService(SubscriptionRepository* repo, ReceiverRepository* receivers,
                      const SecretCodec* codec)
      : repo_(repo), receivers_(receivers), codec_(codec) {}
  // InvalidArgument for a bad urn; NotFound for an unknown receiver id.
  absl::StatusOr<uint64_t> Create(Subscription s, absl::string_view actor);
  absl::StatusOr<Subscription> Get(uint64_t id);
  absl::StatusOr<std::vector<Subscription>> List(uint64_t namespace_id, const Labels& match);
  absl::Status Update(Subscription s, absl::string_view actor);
  absl::Status Delete(uint64_t id, absl::string_view actor);

 private:
  absl::Status Prepare(Subscription& s);
  Subscription Present(Subscription s);
  SubscriptionRepository* repo_;
  ReceiverRepository* receivers_;
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
  absl::StatusOr<std::vector<Template>> List(absl::string_view tag);
  // FailedPrecondition for a built-in template.
  absl::Status Delete(absl::string_view name, absl::string_view actor);
  // Renders `name` with `variables` for `receiver_type`.
  absl::StatusOr<std::string> Render(absl::string_view name, const nlohmann::json& variables,
                                     absl::string_view receiver_type);

 private:
  TemplateRepository* repo_;
};

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_CATALOG_H_
