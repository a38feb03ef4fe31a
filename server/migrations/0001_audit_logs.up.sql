-- The audit log every mutating call of every API writes to, in the same
-- transaction as the change (actor = X-Auth-Email, or "system" for jobs).
CREATE TABLE audit_logs (
  id bigserial PRIMARY KEY,
  timestamp timestamptz NOT NULL DEFAULT now(),
  action text NOT NULL,
  actor text NOT NULL,
  data jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_logs_timestamp_idx ON audit_logs (timestamp);
CREATE INDEX audit_logs_action_idx ON audit_logs (action, timestamp);
CREATE INDEX audit_logs_actor_idx ON audit_logs (actor, timestamp);
