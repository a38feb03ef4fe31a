// What the official-client tests share: starting a fake server script, and
// Google's service-account token flow against the GCP fake.
'use strict';

const assert = require('node:assert');
const crypto = require('node:crypto');
const {spawn} = require('node:child_process');

// Runs `script --port 0` with node; resolves to {process, port, base} once
// the script prints its port, rejects if it exits first. The caller kills
// `process` after its tests.
async function startFake(script) {
  const child = spawn(process.execPath, [script, '--port', '0'],
    {stdio: ['ignore', 'pipe', 'inherit']});
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening on (\d+)/.exec(String(d));
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (c) => reject(new Error(script + ' exited ' + c)));
  });
  return {process: child, port, base: 'http://127.0.0.1:' + port};
}

// Google's documented service-account flow: an RS256 JWT assertion for the
// cloud-platform scope, exchanged at the key's token_uri (the fake's /token).
// `key` is a service-account key as the fake's /_fake/service_accounts
// returns it; resolves to the access token.
async function serviceAccountToken(key) {
  const now = Math.floor(Date.now() / 1000);
  const enc = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = enc({alg: 'RS256', typ: 'JWT', kid: key.private_key_id}) + '.' +
    enc({iss: key.client_email, scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: key.token_uri, iat: now, exp: now + 3600});
  const sig = crypto.sign('RSA-SHA256', Buffer.from(input), key.private_key).toString('base64url');
  const res = await fetch(key.token_uri, {method: 'POST',
    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: input + '.' + sig})});
  assert.strictEqual(res.status, 200);
  return (await res.json()).access_token;
}

module.exports = {startFake, serviceAccountToken};
