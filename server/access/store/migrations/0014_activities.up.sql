-- Issue 28 (item 3): Guardian's activities.
--
-- An appeal's activities are its audit rows (Guardian's
-- core/appeal/activity.go): looked up by the appeal they name, in data.id
-- or (revoke rows, which are about a grant) data.appeal_id, newest first.
-- As Guardian's migration 000020 (audit_logs_appeal_activities), for
-- appeal rows only.
CREATE INDEX audit_logs_appeal_idx ON audit_logs
  ((COALESCE(data->>'appeal_id', data->>'id')), timestamp)
  WHERE action LIKE 'appeal.%';

-- Provider activity imported from the provider's audit log (Guardian's
-- migration 000013 activities table). One row per (provider,
-- provider_activity_id): an import upserts (Guardian's BulkUpsert).
-- resource_id is the Sluice resource the activity's resource matched by URN,
-- NULL when none did (the provider's resource name stays in metadata).
CREATE TABLE activities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  provider_id uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  provider_activity_id text NOT NULL,
  resource_id uuid REFERENCES resources (id) ON DELETE SET NULL,
  account_type text NOT NULL DEFAULT '',
  account_id text NOT NULL DEFAULT '',
  timestamp timestamptz NOT NULL,
  authorizations text[] NOT NULL DEFAULT '{}',
  related_permissions text[] NOT NULL DEFAULT '{}',
  type text NOT NULL DEFAULT '',
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, provider_activity_id)
);
CREATE INDEX activities_timestamp_idx ON activities (timestamp, id);
CREATE INDEX activities_account_idx ON activities (account_id, timestamp);
CREATE INDEX activities_resource_idx ON activities (resource_id, timestamp);
CREATE INDEX activities_type_idx ON activities (type, timestamp);
