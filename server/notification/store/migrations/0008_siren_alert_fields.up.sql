-- Siren's alert fields (goto/siren core/alert/alert.go, migrations 000001 and
-- 000009), derived from the Alertmanager payload as Siren's cortex plugin
-- does (plugins/providers/cortex/v1/service.go TransformToAlerts), plus the
-- hook's namespace and which silences applied (for ListAlerts' silence_id).
ALTER TABLE alerts
  ADD COLUMN namespace_id BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN resource_name TEXT NOT NULL DEFAULT '',
  ADD COLUMN metric_name TEXT NOT NULL DEFAULT '',
  ADD COLUMN metric_value TEXT NOT NULL DEFAULT '',
  ADD COLUMN severity TEXT NOT NULL DEFAULT '',
  ADD COLUMN rule TEXT NOT NULL DEFAULT '',
  ADD COLUMN triggered_at TIMESTAMPTZ,
  ADD COLUMN silence_status TEXT NOT NULL DEFAULT '',
  ADD COLUMN silence_ids TEXT[] NOT NULL DEFAULT '{}';
UPDATE alerts SET triggered_at = starts_at;
UPDATE alerts SET severity = CASE WHEN status = 'resolved' THEN 'resolved'
                                  ELSE COALESCE(labels->>'severity', '') END,
                  resource_name = COALESCE(annotations->>'resource', ''),
                  metric_name = COALESCE(annotations->>'metric_name', ''),
                  metric_value = COALESCE(annotations->>'metric_value', ''),
                  rule = COALESCE(annotations->>'template', '');
CREATE INDEX alerts_resource_idx ON alerts (resource_name);
CREATE INDEX alerts_silence_ids_idx ON alerts USING GIN (silence_ids);
