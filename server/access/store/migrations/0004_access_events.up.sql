-- The access-event outbox (issue 17, section 1). Each row is written in the
-- same transaction as the change it reports (appeal created, step approved,
-- appeal approved or rejected, grant revoked, grant owner changed) or by a
-- reminder job, and delivered after commit by the event dispatcher through
-- the notification API (idempotency key "access-event:<id>").
--
-- `id` is deterministic ("<type>:<subject>[:<qualifier>]"), so a job that
-- runs twice, or on two replicas, writes each reminder once (ON CONFLICT DO
-- NOTHING). `payload` is {"recipients": [emails], "labels": {..},
-- "variables": {..}}.
CREATE TABLE access_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  attempts int NOT NULL DEFAULT 0,
  -- When the dispatcher may (re)try it: now for new rows, the lease's end
  -- while a replica holds it, the backoff's end after a transient failure.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- Set once settled: sent | no_receiver | failed | disabled.
  outcome text,
  done_at timestamptz,
  last_error text NOT NULL DEFAULT ''
);
CREATE INDEX access_events_due_idx ON access_events (next_attempt_at) WHERE done_at IS NULL;
CREATE INDEX access_events_done_idx ON access_events (done_at) WHERE done_at IS NOT NULL;
