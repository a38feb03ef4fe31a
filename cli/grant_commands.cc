// sluicectl grant update|revoke|restore and grant list --mine (the grant
// lifecycle routes); registered by AddAppealCommands under `grant`.
#include <memory>

#include <google/protobuf/util/time_util.h>

#include "cli/access_commands.h"
#include "proto/sluice/access/v1beta1/appeal.grpc.pb.h"

namespace sluice::cli {

namespace pb = ::sluice::access::v1beta1;

namespace {

// Bulk revoke filters (grant revoke without an id).
struct RevokeFilters {
  std::vector<std::string> accounts, provider_types, provider_urns, resource_types, resource_urns;
};

void AddRevoke(CLI::App& grant, const Options& options, int* exit_code) {
  auto id = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  auto f = std::make_shared<RevokeFilters>();
  auto skip_provider = std::make_shared<bool>(false);
  auto skip_notification = std::make_shared<bool>(false);
  auto* revoke = grant.add_subcommand(
      "revoke", "revoke grant <id> (its owner or an admin), or, without an id, every active grant "
                "matching the filters (admins; at least one filter)");
  revoke->add_option("id", *id, "grant id");
  revoke->add_option("--reason", *reason, "revoke reason");
  revoke->add_option("--account", f->accounts, "bulk: account id (repeatable)");
  revoke->add_option("--provider-type", f->provider_types, "bulk: provider type (repeatable)");
  revoke->add_option("--provider-urn", f->provider_urns, "bulk: provider urn (repeatable)");
  revoke->add_option("--resource-type", f->resource_types, "bulk: resource type (repeatable)");
  revoke->add_option("--resource-urn", f->resource_urns, "bulk: resource urn (repeatable)");
  revoke->add_flag("--skip-revoke-in-provider", *skip_provider,
                   "one grant: record the revoke without calling the provider (admins)");
  revoke->add_flag("--skip-notification", *skip_notification,
                   "one grant: send no grant.revoked notification");
  revoke->callback([&options, exit_code, id, reason, f, skip_provider, skip_notification] {
    if (!id->empty()) {
      pb::RevokeGrantRequest req;
      req.set_id(*id);
      req.set_reason(*reason);
      req.set_skip_revoke_in_provider(*skip_provider);
      req.set_skip_notification(*skip_notification);
      CallAndPrint<pb::GrantService>(options, exit_code, req, &pb::GrantService::Stub::RevokeGrant);
      return;
    }
    pb::RevokeGrantsRequest req;
    for (const auto& v : f->accounts) req.add_account_ids(v);
    for (const auto& v : f->provider_types) req.add_provider_types(v);
    for (const auto& v : f->provider_urns) req.add_provider_urns(v);
    for (const auto& v : f->resource_types) req.add_resource_types(v);
    for (const auto& v : f->resource_urns) req.add_resource_urns(v);
    req.set_reason(*reason);
    CallAndPrint<pb::GrantService>(options, exit_code, req, &pb::GrantService::Stub::RevokeGrants);
  });
}

}  // namespace

void AddGrantLifecycleCommands(CLI::App& grant, const Options& options, int* exit_code) {
  auto id = std::make_shared<std::string>();
  auto owner = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  auto expiration = std::make_shared<std::string>();

  auto expiration_reason = std::make_shared<std::string>();
  auto* update = grant.add_subcommand(
      "update", "change a grant's owner (its owner or an admin) and/or shorten its expiration "
                "(admins)");
  update->add_option("id", *id, "grant id")->required();
  update->add_option("--owner", *owner, "the new owner's identity");
  update->add_option("--expiration", *expiration,
                     "new expiration_date, RFC 3339 (admins; not after the current one)");
  update->add_option("--expiration-reason", *expiration_reason,
                     "expiration_date_reason (required with --expiration)");
  update->callback([&options, exit_code, id, owner, expiration, expiration_reason] {
    pb::UpdateGrantRequest req;
    req.set_id(*id);
    req.set_owner(*owner);
    req.set_expiration_date_reason(*expiration_reason);
    if (!expiration->empty() &&
        !google::protobuf::util::TimeUtil::FromString(*expiration, req.mutable_expiration_date())) {
      *exit_code = PrintError(absl::InvalidArgumentError(
          "--expiration: \"" + *expiration + "\" is not an RFC 3339 time"));
      return;
    }
    CallAndPrint<pb::GrantService>(options, exit_code, req, &pb::GrantService::Stub::UpdateGrant);
  });

  AddRevoke(grant, options, exit_code);

  auto* restore = grant.add_subcommand(
      "restore",
      "grant an inactive grant's access again (an admin; its owner only to undo their own "
      "revoke before its expiration)");
  restore->add_option("id", *id, "grant id")->required();
  restore->add_option("--reason", *reason, "why (required)")->required();
  restore->add_option("--expiration", *expiration,
                      "new expiration, RFC 3339 (admins only; required when the grant's own "
                      "has passed; at most the policy's longest duration option or "
                      "access.max_grant_duration from now)");
  restore->callback([&options, exit_code, id, reason, expiration] {
    pb::RestoreGrantRequest req;
    req.set_id(*id);
    req.set_reason(*reason);
    if (!expiration->empty() &&
        !google::protobuf::util::TimeUtil::FromString(*expiration, req.mutable_expiration_date())) {
      *exit_code = PrintError(absl::InvalidArgumentError(
          "--expiration: \"" + *expiration + "\" is not an RFC 3339 time"));
      return;
    }
    CallAndPrint<pb::GrantService>(options, exit_code, req, &pb::GrantService::Stub::RestoreGrant);
  });
}

}  // namespace sluice::cli
