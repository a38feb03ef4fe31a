-- The provider operation journal (security review M2): every GrantAccess and
-- RevokeAccess is written here, committed, before the provider is called,
-- and settled after the transaction that records its effect. Entries still
-- 'in_flight' after a crash are settled by the reconciliation job.
CREATE TABLE provider_operations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  op text NOT NULL,                        -- grant | revoke
  status text NOT NULL DEFAULT 'in_flight',  -- in_flight, then the outcome
  account_id text NOT NULL,
  account_type text NOT NULL,
  resource_id uuid NOT NULL,
  role text NOT NULL,
  permissions jsonb NOT NULL DEFAULT '[]'::jsonb,
  provider_type text NOT NULL,
  provider_urn text NOT NULL,
  appeal_id text NOT NULL DEFAULT '',
  grant_id text NOT NULL DEFAULT '',
  started_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz
);
CREATE INDEX provider_operations_in_flight_idx ON provider_operations (started_at)
  WHERE status = 'in_flight';
CREATE INDEX provider_operations_settled_idx ON provider_operations (settled_at)
  WHERE status <> 'in_flight';
