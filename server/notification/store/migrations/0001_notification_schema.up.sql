-- Notification API schema: receivers, subscriptions, templates, notifications
-- with their delivery queue (notification_messages), and stored alerts.
CREATE TABLE receivers (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  labels JSONB NOT NULL DEFAULT '{}',
  configurations JSONB NOT NULL DEFAULT '{}',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX receivers_labels_idx ON receivers USING GIN (labels);

CREATE TABLE subscriptions (
  id BIGSERIAL PRIMARY KEY,
  urn TEXT NOT NULL UNIQUE,
  namespace_id BIGINT NOT NULL DEFAULT 0,
  match JSONB NOT NULL DEFAULT '{}',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- Matching asks "match <@ labels": GIN (jsonb_ops) serves containment both ways.
CREATE INDEX subscriptions_match_idx ON subscriptions USING GIN (match);
CREATE INDEX subscriptions_namespace_idx ON subscriptions (namespace_id);

-- Receivers of a subscription, in order; RESTRICT makes a used receiver undeletable.
CREATE TABLE subscription_receivers (
  subscription_id BIGINT NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
  position INT NOT NULL,
  receiver_id BIGINT NOT NULL REFERENCES receivers(id) ON DELETE RESTRICT,
  configuration JSONB NOT NULL DEFAULT '{}',
  PRIMARY KEY (subscription_id, position)
);
CREATE INDEX subscription_receivers_receiver_idx ON subscription_receivers (receiver_id);

CREATE TABLE templates (
  name TEXT PRIMARY KEY,
  body TEXT NOT NULL,
  tags JSONB NOT NULL DEFAULT '[]',
  variables JSONB NOT NULL DEFAULT '[]',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX templates_tags_idx ON templates USING GIN (tags);

CREATE TABLE notifications (
  id BIGSERIAL PRIMARY KEY,
  idempotency_key TEXT UNIQUE,
  template TEXT NOT NULL,
  data JSONB NOT NULL DEFAULT '{}',
  labels JSONB NOT NULL DEFAULT '{}',
  source TEXT NOT NULL DEFAULT 'api',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The durable delivery queue. Workers claim due rows with
-- SELECT … FOR UPDATE SKIP LOCKED; `pending` rows hold a lease so that a
-- crashed worker's messages are claimed again after lease_until.
CREATE TABLE notification_messages (
  id BIGSERIAL PRIMARY KEY,
  notification_id BIGINT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
  receiver_id BIGINT NOT NULL,
  receiver_type TEXT NOT NULL,
  config_override JSONB NOT NULL DEFAULT '{}',
  status TEXT NOT NULL DEFAULT 'enqueued',
  try_count INT NOT NULL DEFAULT 0,
  max_tries INT NOT NULL DEFAULT 3,
  last_error TEXT NOT NULL DEFAULT '',
  expire_at TIMESTAMPTZ NOT NULL,
  next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  lease_until TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX notification_messages_notification_idx ON notification_messages (notification_id);
CREATE INDEX notification_messages_due_idx ON notification_messages (next_attempt_at)
  WHERE status IN ('enqueued', 'pending');

CREATE TABLE alerts (
  id BIGSERIAL PRIMARY KEY,
  provider_type TEXT NOT NULL,
  provider_id TEXT NOT NULL,
  status TEXT NOT NULL,
  labels JSONB NOT NULL DEFAULT '{}',
  annotations JSONB NOT NULL DEFAULT '{}',
  starts_at TIMESTAMPTZ NOT NULL,
  ends_at TIMESTAMPTZ,
  generator_url TEXT NOT NULL DEFAULT '',
  fingerprint TEXT NOT NULL DEFAULT '',
  group_key TEXT NOT NULL DEFAULT '',
  notification_id BIGINT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX alerts_provider_idx ON alerts (provider_type, provider_id, starts_at DESC);
