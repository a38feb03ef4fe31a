-- Issue 28 (item 4): Guardian's list filters look resources up by urn
-- (ListGrants/ListAppeals/ListApprovals resource_urns, ListResources urns
-- and urn_starts_with) and order them by name, urn, created_at or
-- updated_at. The unique key (provider_type, provider_urn, type, urn) only
-- serves lookups that start with the provider type. text_pattern_ops
-- serves both equality and LIKE 'prefix%' whatever the collation.
CREATE INDEX resources_urn_idx ON resources (urn text_pattern_ops);
CREATE INDEX resources_urn_order_idx ON resources (urn, id);
CREATE INDEX resources_name_idx ON resources (name, id);
CREATE INDEX resources_created_at_idx ON resources (created_at, id);
CREATE INDEX resources_updated_at_idx ON resources (updated_at, id);
