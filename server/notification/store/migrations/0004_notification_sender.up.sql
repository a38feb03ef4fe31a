-- Who sent each notification: only the sender and notification admins may
-- read its messages (security review 2026-11, M12). Rows from before this
-- migration have no sender and are readable by admins only.
ALTER TABLE notifications ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
