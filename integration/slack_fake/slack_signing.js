// Slack's request signing (v0), as Slack signs the requests it sends an app
// (interaction payloads, slash commands, events):
// https://api.slack.com/authentication/verifying-requests-from-slack
// For tests that play Slack towards Sluice's server. Node builtins only.
//   const {sign} = require('.../slack_signing.js');
//   const headers = sign(signingSecret, rawBody);  // timestamp: now
//   // {'X-Slack-Request-Timestamp': '1700000000', 'X-Slack-Signature': 'v0=<hex>'}
// The signature is 'v0=' + hex(HMAC-SHA256(secret, `v0:${timestamp}:${body}`)),
// over the body exactly as sent (e.g. the form-encoded "payload=..." text).
'use strict';

const crypto = require('node:crypto');

// The two headers Slack sends with `body` (string or Buffer) signed with
// `secret` at `timestampSeconds` (Unix seconds; default now).
function sign(secret, body, timestampSeconds = Math.floor(Date.now() / 1000)) {
  const ts = String(timestampSeconds);
  const hmac = crypto.createHmac('sha256', secret);
  hmac.update(`v0:${ts}:`);
  hmac.update(body);
  return {'X-Slack-Request-Timestamp': ts, 'X-Slack-Signature': 'v0=' + hmac.digest('hex')};
}

module.exports = {sign};
