-- PatchAppeal (issue 28, Guardian's appeal revisions): a patched appeal's
-- flow restarts; the approvals of earlier revisions stay as a record,
-- marked stale (no approvers, never listed or actionable). Only the current
-- revision's steps are unique per appeal.
-- details: free JSON of steps added or updated by admins (AddApprovalStep,
-- UpdateApprovalStep).
ALTER TABLE approvals
  ADD COLUMN appeal_revision integer NOT NULL DEFAULT 0,
  ADD COLUMN is_stale boolean NOT NULL DEFAULT false,
  ADD COLUMN details jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE approvals DROP CONSTRAINT approvals_appeal_id_step_index_key;
CREATE UNIQUE INDEX approvals_current_step_idx ON approvals (appeal_id, step_index)
  WHERE NOT is_stale;
