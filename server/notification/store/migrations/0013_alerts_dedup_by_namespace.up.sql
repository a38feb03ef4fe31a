-- An alert instance is now (provider, namespace, fingerprint, startsAt): the
-- namespace hook of one tenant must not rewrite the stored alert (status,
-- silence outcome) of another tenant's namespace that has the same label
-- set (security review R3-M2). Rows of different namespaces were merged
-- before; the key only widens, so no stored row conflicts with it.
DROP INDEX alerts_instance_idx;
CREATE UNIQUE INDEX alerts_instance_idx
  ON alerts (provider_type, provider_id, namespace_id, fingerprint, starts_at)
  WHERE fingerprint <> '';
