-- One row per alert instance: Alertmanager resends a firing alert on every
-- group update and repeat_interval, and sends it once more when resolved,
-- always with the same fingerprint (the hash of its label set) and startsAt.
-- Those resends now update the stored row (status, ends_at, annotations)
-- instead of adding one. Earlier duplicates keep their newest row.
DELETE FROM alerts a USING alerts b
 WHERE a.fingerprint <> '' AND a.provider_type = b.provider_type
   AND a.provider_id = b.provider_id AND a.fingerprint = b.fingerprint
   AND a.starts_at = b.starts_at AND a.id < b.id;
ALTER TABLE alerts ADD COLUMN updated_at TIMESTAMPTZ NOT NULL DEFAULT now();
CREATE UNIQUE INDEX alerts_instance_idx ON alerts (provider_type, provider_id, fingerprint, starts_at)
  WHERE fingerprint <> '';
