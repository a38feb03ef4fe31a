// Proves integration/slack_fake/slack_signing.js (the request signing tests
// use to play Slack towards the server) with Slack's own verifier,
// verifySlackRequest from @slack/bolt (pinned in package.json): Slack's
// documented example signs to its documented signature; a body signed now
// and sent over HTTP is accepted; a tampered body, a wrong secret and a
// timestamp older than 5 minutes are rejected.
// Run by official_clients_test.sh with NODE_PATH set.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const http = require('node:http');
const path = require('node:path');
const {verifySlackRequest} = require('@slack/bolt');
const {sign} = require(path.join(__dirname, '..', '..', 'slack_fake', 'slack_signing.js'));

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

// An app's endpoint: verifies each request with bolt's verifySlackRequest
// over the raw body and headers as received; 200, or 401 with the reason.
let server, url;

test.before(async () => {
  server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        verifySlackRequest({signingSecret: SECRET, body: Buffer.concat(chunks).toString(), headers: req.headers});
        res.writeHead(200).end('ok');
      } catch (e) {
        res.writeHead(401).end(e.message);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}/slack/interactions`;
});

test.after(() => server.close());

// POSTs `body` with `headers` as Slack posts interaction payloads; {status, text}.
async function post(body, headers) {
  const res = await fetch(url, {method: 'POST', body,
    headers: {'Content-Type': 'application/x-www-form-urlencoded', ...headers}});
  return {status: res.status, text: await res.text()};
}

const payload = () => 'payload=' + encodeURIComponent(JSON.stringify({type: 'block_actions',
  user: {id: 'U8', team_id: 'T1'}, trigger_id: '1.2.abc',
  actions: [{action_id: 'approve', value: 'a1'}]}));

test("Slack's documented example signs to its documented signature", () => {
  // https://api.slack.com/authentication/verifying-requests-from-slack
  const body = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&' +
    'channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&' +
    'command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2F' +
    'T1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&' +
    'trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
  const headers = sign(SECRET, body, 1531420618);
  assert.deepStrictEqual(headers, {'X-Slack-Request-Timestamp': '1531420618',
    'X-Slack-Signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503'});
  assert.deepStrictEqual(sign(SECRET, Buffer.from(body), 1531420618), headers);
  verifySlackRequest({signingSecret: SECRET, body, nowMilliseconds: 1531420618 * 1000,
    headers: {'x-slack-request-timestamp': 1531420618, 'x-slack-signature': headers['X-Slack-Signature']}});
});

test('a body signed now is accepted by verifySlackRequest', async () => {
  const body = payload();
  const headers = sign(SECRET, body);
  assert.ok(Math.abs(Number(headers['X-Slack-Request-Timestamp']) - Date.now() / 1000) < 5);
  assert.deepStrictEqual(await post(body, headers), {status: 200, text: 'ok'});
  // A timestamp given explicitly, 4 minutes old, is still in Slack's window.
  assert.deepStrictEqual(await post(body, sign(SECRET, body, Math.floor(Date.now() / 1000) - 240)),
    {status: 200, text: 'ok'});
});

test('a tampered body, a wrong secret and a stale timestamp are rejected', async () => {
  const body = payload();
  const tampered = await post(body.replace('approve', 'reject_'), sign(SECRET, body));
  assert.strictEqual(tampered.status, 401);
  assert.match(tampered.text, /signature mismatch/);
  const wrong = await post(body, sign('not-the-signing-secret', body));
  assert.strictEqual(wrong.status, 401);
  assert.match(wrong.text, /signature mismatch/);
  const stale = await post(body, sign(SECRET, body, Math.floor(Date.now() / 1000) - 6 * 60));
  assert.strictEqual(stale.status, 401);
  assert.match(stale.text, /stale/);
  const unsigned = await post(body, {'X-Slack-Request-Timestamp': String(Math.floor(Date.now() / 1000)),
    'X-Slack-Signature': 'v0='});
  assert.strictEqual(unsigned.status, 401);
});
