-- Slack interactivity requests already handled (issue 44): the v0 signature
-- of each verified request, kept until its timestamp leaves Slack's
-- 5-minute window (after that the timestamp check refuses it anyway). A
-- second request with the same signature, at any replica, is a replay.
CREATE TABLE slack_interaction_signatures (
  signature text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX slack_interaction_signatures_expires_at ON slack_interaction_signatures (expires_at);
