-- Access API part 2: appeals, their approvals (one per policy step), grants.
CREATE TABLE appeals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  resource_id uuid NOT NULL REFERENCES resources (id),
  policy_id text NOT NULL,
  policy_version integer NOT NULL,
  status text NOT NULL,
  account_id text NOT NULL,
  account_type text NOT NULL,
  role text NOT NULL,
  created_by text NOT NULL,
  data jsonb NOT NULL DEFAULT '{}'::jsonb,  -- permissions, options, details, labels, description, creator
  revoked_by text NOT NULL DEFAULT '',
  revoked_at timestamptz,
  revoke_reason text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- At most one pending appeal per account+resource+role (AlreadyExists).
CREATE UNIQUE INDEX appeals_one_pending_idx ON appeals (account_id, resource_id, role)
  WHERE status = 'pending';
CREATE INDEX appeals_account_idx ON appeals (account_id, status, created_at);
CREATE INDEX appeals_created_by_idx ON appeals (created_by, created_at);
CREATE INDEX appeals_status_idx ON appeals (status, created_at);

CREATE TABLE approvals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  appeal_id uuid NOT NULL REFERENCES appeals (id),
  step_index integer NOT NULL,
  name text NOT NULL,
  status text NOT NULL,
  actor text NOT NULL DEFAULT '',
  reason text NOT NULL DEFAULT '',
  approvers jsonb NOT NULL DEFAULT '[]'::jsonb,
  policy_id text NOT NULL,
  policy_version integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (appeal_id, step_index)
);
-- GET /me/approvals: approvers ? <email>.
CREATE INDEX approvals_approvers_idx ON approvals USING gin (approvers);

CREATE TABLE grants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  status text NOT NULL,
  status_in_provider text NOT NULL DEFAULT '',
  account_id text NOT NULL,
  account_type text NOT NULL,
  group_id text NOT NULL DEFAULT '',
  group_type text NOT NULL DEFAULT '',
  resource_id uuid NOT NULL REFERENCES resources (id),
  role text NOT NULL,
  permissions jsonb NOT NULL DEFAULT '[]'::jsonb,
  is_permanent boolean NOT NULL DEFAULT false,
  expiration_date timestamptz,
  expiration_date_reason text NOT NULL DEFAULT '',
  appeal_id uuid REFERENCES appeals (id),
  pending_appeal_id uuid,
  source text NOT NULL DEFAULT 'appeal',
  revoked_by text NOT NULL DEFAULT '',
  revoked_at timestamptz,
  revoke_reason text NOT NULL DEFAULT '',
  restored_by text NOT NULL DEFAULT '',
  restored_at timestamptz,
  restore_reason text NOT NULL DEFAULT '',
  owner text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- At most one active grant per account+resource+role.
CREATE UNIQUE INDEX grants_one_active_idx ON grants (account_id, resource_id, role)
  WHERE status = 'active';
CREATE INDEX grants_account_idx ON grants (account_id, status, created_at);
CREATE INDEX grants_expiry_idx ON grants (expiration_date) WHERE status = 'active';
CREATE INDEX grants_appeal_idx ON grants (appeal_id);
CREATE INDEX grants_resource_idx ON grants (resource_id);
CREATE INDEX grants_owner_idx ON grants (owner, created_at);
CREATE INDEX grants_status_idx ON grants (status, created_at);
