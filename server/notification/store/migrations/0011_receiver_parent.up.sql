-- Siren's receiver parent_id (#30 item 6): a child receiver (slack_channel,
-- lark_channel) sends with its parent's credentials (slack, lark). 0: none.
-- No foreign key: deleting a parent leaves its children, whose messages
-- then fail naming the missing parent (as Siren, which has no constraint).
ALTER TABLE receivers ADD COLUMN parent_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX receivers_parent_id_idx ON receivers (parent_id) WHERE parent_id <> 0;
