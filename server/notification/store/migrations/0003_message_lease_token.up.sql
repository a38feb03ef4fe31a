-- The claim that holds a pending message. Claim sets a fresh token; the
-- outcome of a send (published / failed / retry) and Release are recorded
-- only by the holder of the current token, so a worker whose lease expired
-- while it was sending cannot overwrite what a later claim recorded (e.g.
-- flip a published message back to enqueued).
ALTER TABLE notification_messages ADD COLUMN lease_token UUID;
