-- Siren's subscription fields (issue #30): free-form metadata (filtered by
-- containment), who created / last updated it as the client says, and labels
-- on each subscription-receiver relation (subscription_receiver_labels) with
-- the relation's own times.
ALTER TABLE subscriptions
  ADD COLUMN metadata JSONB NOT NULL DEFAULT '{}',
  ADD COLUMN created_by TEXT NOT NULL DEFAULT '',
  ADD COLUMN updated_by TEXT NOT NULL DEFAULT '';
CREATE INDEX subscriptions_metadata_idx ON subscriptions USING GIN (metadata);
ALTER TABLE subscription_receivers
  ADD COLUMN labels JSONB NOT NULL DEFAULT '{}',
  ADD COLUMN created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  ADD COLUMN updated_at TIMESTAMPTZ NOT NULL DEFAULT now();
