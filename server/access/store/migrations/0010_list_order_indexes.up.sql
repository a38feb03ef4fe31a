-- Issue 28 (item 4): every list of appeals, approvals and grants is ordered
-- by created_at (default, newest first) or updated_at (Guardian's UI sends
-- order_by=updated_at:desc) and read a page at a time. Without an index on
-- the order column an admin's unfiltered page sorted the whole table (1M
-- grants: a top-N heap sort over every row); with one it reads the page's
-- rows from the index and stops. The id is the tie-breaker of every
-- ORDER BY (OrderClause), so it is part of the key.
-- Built inside the migration's transaction: writes to these tables wait
-- for the build (seconds at a million rows).
CREATE INDEX grants_created_at_idx ON grants (created_at, id);
CREATE INDEX grants_updated_at_idx ON grants (updated_at, id);
CREATE INDEX appeals_created_at_idx ON appeals (created_at, id);
CREATE INDEX appeals_updated_at_idx ON appeals (updated_at, id);
CREATE INDEX approvals_created_at_idx ON approvals (created_at, id);
CREATE INDEX approvals_updated_at_idx ON approvals (updated_at, id);
