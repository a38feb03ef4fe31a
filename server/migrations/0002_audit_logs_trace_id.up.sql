-- The W3C trace id (32 lowercase hex characters) of the request that wrote
-- the row, named as in Guardian's audit rows (issue 43, "Traces"), so that an
-- audit entry leads to the request's spans and log lines. NULL for rows
-- written outside a traced request and for rows older than this migration.
ALTER TABLE audit_logs ADD COLUMN trace_id text;
CREATE INDEX audit_logs_trace_id_idx ON audit_logs (trace_id) WHERE trace_id IS NOT NULL;
