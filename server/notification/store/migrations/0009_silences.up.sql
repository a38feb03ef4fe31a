-- Silences as in Siren (goto/siren migrations 000007_create_silences): by
-- label matchers (type 'Matchers', target_expression = labels) or by
-- subscription (type 'subscription', target_id, optional
-- target_expression.rule). Expiring sets deleted_at (a soft delete).
CREATE TABLE silences (
  id TEXT PRIMARY KEY DEFAULT gen_random_uuid()::text,
  namespace_id BIGINT NOT NULL DEFAULT 0,
  type TEXT NOT NULL,
  target_id BIGINT NOT NULL DEFAULT 0,
  target_expression JSONB NOT NULL DEFAULT '{}',
  creator TEXT NOT NULL DEFAULT '',
  comment TEXT NOT NULL DEFAULT '',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  deleted_at TIMESTAMPTZ
);
CREATE INDEX silences_active_idx ON silences (namespace_id, type) WHERE deleted_at IS NULL;
