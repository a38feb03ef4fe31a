-- Access API part 1: versioned policies, providers, resources.
CREATE TABLE policies (
  id text NOT NULL,
  version integer NOT NULL,
  data jsonb NOT NULL,            -- the whole Policy (proto JSON, field names)
  created_by text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id, version)
);

CREATE TABLE providers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  type text NOT NULL,
  urn text NOT NULL,
  config jsonb NOT NULL,          -- ProviderConfig without credentials
  credentials text NOT NULL DEFAULT '',  -- AES-256-GCM of the credentials JSON
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (type, urn)
);

CREATE TABLE resources (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  provider_type text NOT NULL,
  provider_urn text NOT NULL,
  type text NOT NULL,
  urn text NOT NULL,
  name text NOT NULL DEFAULT '',
  details jsonb NOT NULL DEFAULT '{}'::jsonb,           -- user_details || provider_details
  provider_details jsonb NOT NULL DEFAULT '{}'::jsonb,  -- as last fetched
  user_details jsonb NOT NULL DEFAULT '{}'::jsonb,      -- added through PUT /resources/{id}
  labels jsonb NOT NULL DEFAULT '{}'::jsonb,
  is_deleted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_type, provider_urn, type, urn)
);
-- GET /resources?details=path:value uses details @> '{...}'.
CREATE INDEX resources_details_idx ON resources USING gin (details jsonb_path_ops);
CREATE INDEX resources_type_idx ON resources (type, is_deleted);
