-- Appeal statuses become Guardian's (domain/appeal.go): pending, approved,
-- rejected, canceled. "active" is "approved" and "cancelled" is "canceled".
-- "terminated" (an approved appeal whose grant was revoked or replaced by a
-- newer appeal) is "approved" too: as in Guardian, the grant's status says
-- the access is gone, and the appeal keeps revoked_by/revoked_at/revoke_reason.
-- No index or constraint names these values (appeals_one_pending_idx names
-- only 'pending'); grant and approval statuses are unchanged.
UPDATE appeals SET status = CASE status
    WHEN 'active' THEN 'approved'
    WHEN 'terminated' THEN 'approved'
    WHEN 'cancelled' THEN 'canceled'
  END
  WHERE status IN ('active', 'terminated', 'cancelled');
