-- What a provider plugin recorded at grant time and needs back at revoke
-- (Grant.provider_state, JSON; review F-M3: tableau's site role before the
-- grant raised it). '' for grants made before, and for most plugins.
ALTER TABLE grants ADD COLUMN provider_state text NOT NULL DEFAULT '';
