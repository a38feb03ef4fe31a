// PATCH /grants/{id} (Guardian's grant Update): a new owner and/or, for
// admins, a shorter expiration_date with its reason.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "server/access/core/grant/grant_service.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime(absl::RFC3339_sec, t, absl::UTCTimeZone());
}

std::string ExpirationOf(const pb::Grant& g) {
  return g.is_permanent() || !g.has_expiration_date() ? "permanent"
                                                      : Rfc3339(FromTimestamp(g.expiration_date()));
}

// Guardian's GrantUpdate.Validate for the expiration part, on `g` as it is
// now, plus Sluice's cap (the one a restore has).
absl::Status CheckExpiration(const pb::Grant& g, absl::Time expiration, const std::string& reason,
                             absl::Time now, const ExpirationCap& cap) {
  if (g.status() != "active") {
    return absl::FailedPreconditionError(absl::StrCat(
        "grant ", g.id(), " is ", g.status(), ": only an active grant's expiration_date changes"));
  }
  if (expiration <= now) return absl::InvalidArgumentError("expiration_date: must be in the future");
  if (!g.is_permanent() && g.has_expiration_date() &&
      expiration > FromTimestamp(g.expiration_date())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expiration_date: ", Rfc3339(expiration), " is after the grant's current expiration_date ",
        ExpirationOf(g), " (it may only be brought forward; appeal again to extend)"));
  }
  if (expiration > now + cap.max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expiration_date: ", Rfc3339(expiration), " is beyond the cap for this grant, ",
        absl::FormatDuration(cap.max), " from now (", cap.source, "): at most ",
        Rfc3339(now + cap.max)));
  }
  if (reason.empty()) return absl::InvalidArgumentError("expiration_date_reason: required");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<pb::Grant> GrantService::UpdateGrantOwner(const std::string& id,
                                                         const std::string& owner,
                                                         const Actor& actor) {
  return UpdateGrant(id, owner, std::nullopt, "", actor);
}

absl::StatusOr<pb::Grant> GrantService::UpdateGrant(const std::string& id,
                                                    const std::string& owner,
                                                    std::optional<absl::Time> expiration,
                                                    const std::string& expiration_reason,
                                                    const Actor& actor) {
  if (!IsUuid(id)) return absl::InvalidArgumentError(absl::StrCat("id: \"", id, "\" is not a UUID"));
  // Guardian's IsUpdatingExpirationDate: either field asks for it.
  const bool updating_expiration = expiration.has_value() || !expiration_reason.empty();
  if (owner.empty() && !updating_expiration) {
    return absl::InvalidArgumentError("owner: required (or expiration_date)");
  }
  if (updating_expiration) {
    if (!actor.admin) {
      return absl::PermissionDeniedError(absl::StrCat(
          "expiration_date: only an access admin may change a grant's expiration date; ",
          actor.identity, " is not one"));
    }
    if (!expiration.has_value()) {
      return absl::InvalidArgumentError(
          "expiration_date: required with expiration_date_reason");
    }
  }
  if (!owner.empty() && HasControlCharacter(owner)) {
    return absl::InvalidArgumentError("owner: must not contain control characters");
  }
  auto current = GrantForOwner(id, actor, "update");
  if (!current.ok()) return current.status();
  // An email address (whom grant.owner_changed and /me/grants address), or
  // the grant's own account (e.g. a service account owning its grant).
  if (!owner.empty() && !IsEmailAddress(owner) && owner != current->account_id()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "owner: \"", owner, "\" is neither an email address nor the grant's account id"));
  }
  absl::Time now = applier_->Now();
  std::optional<ExpirationCap> cap;
  if (updating_expiration) {
    auto config = providers_->GetPlainConfig(current->resource().provider_type(),
                                             current->resource().provider_urn());
    if (!config.ok()) return config.status();
    // One cap for a restore and for this (issue 28): what a new appeal for
    // the same access could get.
    auto c = RestoreCapOf(*current, *config);
    if (!c.ok()) return c.status();
    cap = *c;
    if (auto st = CheckExpiration(*current, *expiration, expiration_reason, now, *cap); !st.ok()) {
      return st;
    }
  }
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto g = tx.GetGrant(id, /*for_update=*/true);
    if (!g.ok()) return g.status();
    *g->mutable_updated_at() = ToTimestamp(now);
    if (updating_expiration) {
      // Checked again on the locked row: it may have changed meanwhile.
      if (auto s = CheckExpiration(*g, *expiration, expiration_reason, now, *cap); !s.ok()) {
        return s;
      }
      std::string previous = ExpirationOf(*g);
      g->set_is_permanent(false);  // as Guardian's Update
      *g->mutable_expiration_date() = ToTimestamp(*expiration);
      g->set_expiration_date_reason(expiration_reason);
      if (auto s = tx.Audit({"grant.update_expiration", actor.identity,
                             {{"grant_id", id},
                              {"previous_expiration_date", previous},
                              {"expiration_date", Rfc3339(*expiration)},
                              {"expiration_date_reason", expiration_reason}}});
          !s.ok()) {
        return s;
      }
    }
    if (owner.empty()) return tx.UpdateGrant(*g);
    std::string previous = g->owner();
    g->set_owner(owner);
    if (auto s = tx.UpdateGrant(*g); !s.ok()) return s;
    // grant.owner_changed to the previous and the new owner, in this
    // transaction (nothing when the owner is unchanged).
    if (auto s = RecordOwnerChange(tx, *g, previous, actor.identity); !s.ok()) return s;
    return tx.Audit({"grant.update", actor.identity,
                     {{"grant_id", id}, {"previous_owner", previous}, {"owner", owner}}});
  });
  if (!st.ok()) return st;
  applier_->EventsCommitted();
  return appeals_->GetGrant(id);
}

}  // namespace sluice::access
