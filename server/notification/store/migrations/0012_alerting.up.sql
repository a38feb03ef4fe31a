-- Siren's alerting side (issue #31): alert providers, namespaces and rules
-- (Siren's internal/store/postgres/{provider,namespace,rule}*.go). Credentials
-- are Crypter text (common/crypto.h), bound to the provider host / namespace.
CREATE TABLE alert_providers (
  id          bigserial PRIMARY KEY,
  host        text NOT NULL,
  urn         text NOT NULL UNIQUE,
  name        text NOT NULL,
  type        text NOT NULL,
  credentials text NOT NULL DEFAULT '',
  labels      jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE alert_namespaces (
  id          bigserial PRIMARY KEY,
  provider_id bigint NOT NULL REFERENCES alert_providers (id),
  urn         text NOT NULL,
  name        text NOT NULL,
  credentials text NOT NULL DEFAULT '',
  labels      jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, urn)
);

CREATE TABLE alert_rules (
  id             bigserial PRIMARY KEY,
  name           text NOT NULL UNIQUE,
  namespace      text NOT NULL,
  group_name     text NOT NULL,
  template       text NOT NULL,
  enabled        boolean NOT NULL DEFAULT false,
  variables      jsonb NOT NULL DEFAULT '[]',
  namespace_id   bigint NOT NULL REFERENCES alert_namespaces (id),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_rules_namespace_id ON alert_rules (namespace_id);
