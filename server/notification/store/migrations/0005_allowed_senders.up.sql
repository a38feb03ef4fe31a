-- Who may send to a receiver, or reach receivers through a subscription
-- (security review round 2, F-M1): a JSON array of identities and
-- "group:<name>" entries. Empty (every existing row): no narrowing beyond
-- notification.senders / sender_groups.
ALTER TABLE receivers ADD COLUMN allowed_senders JSONB NOT NULL DEFAULT '[]';
ALTER TABLE subscriptions ADD COLUMN allowed_senders JSONB NOT NULL DEFAULT '[]';
