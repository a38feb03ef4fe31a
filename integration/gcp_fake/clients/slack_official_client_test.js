// Drives integration/slack_fake with Slack's official Node.js client
// (@slack/web-api, pinned in package.json) to show that the fake answers as
// Slack's Web API does for the methods Sluice's slack receivers use:
// oauth.v2.access (a code is good once; a wrong secret or code is refused),
// chat.postMessage (by channel name and ID, with blocks), the errors the
// client raises as platform errors (invalid_auth, channel_not_found), and an
// injected HTTP 429 + Retry-After, which the client waits out and retries.
// Run by official_clients_test.sh with NODE_PATH set.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const {WebClient, ErrorCode} = require('@slack/web-api');
const {startFake} = require('./test_support');

let fake, base;

async function control(method, p, body) {
  const res = await fetch(base + p, {method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: {'Content-Type': 'application/json'}});
  assert.strictEqual(res.status, 200, `control ${method} ${p}`);
  return res.json();
}

function client(token, options = {}) {
  return new WebClient(token, {slackApiUrl: base + '/api/', retryConfig: {retries: 0}, ...options});
}

test.before(async () => {
  ({process: fake, base} = await startFake(path.join(__dirname, '..', '..', 'slack_fake', 'slack_fake.js')));
});

test.after(() => fake.kill());

test.beforeEach(async () => {
  await control('POST', '/_fake/reset');
  await control('POST', '/_fake/setup', {
    apps: [{client_id: 'cid', client_secret: 'csecret', code: 'code-1', access_token: 'xoxb-acme',
      team: {id: 'T1', name: 'acme'}}],
    channels: [{id: 'C1', name: 'alerts'}, {id: 'C2', name: 'quiet', is_member: false}],
    users: [{id: 'U7', email: 'ops@acme.io'}],
  });
});

test('oauth.v2.access exchanges a code once for a bot token and the team', async () => {
  const c = client(undefined);
  const r = await c.oauth.v2.access({client_id: 'cid', client_secret: 'csecret', code: 'code-1'});
  assert.strictEqual(r.ok, true);
  assert.strictEqual(r.access_token, 'xoxb-acme');
  assert.deepStrictEqual(r.team, {id: 'T1', name: 'acme'});
  await assert.rejects(c.oauth.v2.access({client_id: 'cid', client_secret: 'csecret', code: 'code-1'}),
    (e) => e.code === ErrorCode.PlatformError && e.data.error === 'invalid_code');
  const state = await control('GET', '/_fake/state');
  assert.deepStrictEqual(state.exchanged, [{client_id: 'cid', code: 'code-1', team: {id: 'T1', name: 'acme'}}]);
});

test('a wrong client secret is refused', async () => {
  await assert.rejects(client(undefined).oauth.v2.access({client_id: 'cid', client_secret: 'x', code: 'code-1'}),
    (e) => e.code === ErrorCode.PlatformError && e.data.error === 'bad_client_secret');
});

test('chat.postMessage with the exchanged token lands in the channel', async () => {
  const r0 = await client(undefined).oauth.v2.access({client_id: 'cid', client_secret: 'csecret', code: 'code-1'});
  const c = client(r0.access_token);
  const r = await c.chat.postMessage({channel: 'alerts', text: 'disk full',
    blocks: [{type: 'section', text: {type: 'mrkdwn', text: '*disk full*'}}]});
  assert.strictEqual(r.ok, true);
  assert.strictEqual(r.channel, 'C1');
  await c.chat.postMessage({channel: 'U7', text: 'dm'});
  const state = await control('GET', '/_fake/state');
  assert.deepStrictEqual(state.messages.map((m) => [m.channel, m.team, m.text]),
    [['C1', 'acme', 'disk full'], ['U7', 'acme', 'dm']]);
  assert.strictEqual(state.messages[0].blocks[0].text.text, '*disk full*');
  const u = await c.users.lookupByEmail({email: 'ops@acme.io'});
  assert.strictEqual(u.user.id, 'U7');
  const joined = await c.users.conversations({types: 'public_channel,private_channel'});
  assert.deepStrictEqual(joined.channels.map((x) => x.name), ['alerts']);
});

test('invalid_auth, channel_not_found and not_in_channel are platform errors', async () => {
  await assert.rejects(client('xoxb-wrong').chat.postMessage({channel: 'alerts', text: 'x'}),
    (e) => e.code === ErrorCode.PlatformError && e.data.error === 'invalid_auth');
  await control('POST', '/_fake/setup', {tokens: [{access_token: 'xoxb-t', team: {id: 'T1', name: 'acme'}}]});
  const c = client('xoxb-t');
  await assert.rejects(c.chat.postMessage({channel: 'nope', text: 'x'}),
    (e) => e.code === ErrorCode.PlatformError && e.data.error === 'channel_not_found');
  await assert.rejects(c.chat.postMessage({channel: 'quiet', text: 'x'}),
    (e) => e.code === ErrorCode.PlatformError && e.data.error === 'not_in_channel');
  assert.deepStrictEqual((await control('GET', '/_fake/state')).messages, []);
});

test('an injected 429 with Retry-After is waited out and retried by the client', async () => {
  await control('POST', '/_fake/setup', {tokens: [{access_token: 'xoxb-t', team: {id: 'T1', name: 'acme'}}]});
  await control('POST', '/_fake/fail', {method: 'chat.postMessage', status: 429, retry_after: 1});
  const c = client('xoxb-t', {retryConfig: {retries: 2, factor: 1, minTimeout: 10, maxTimeout: 10}});
  let limited = 0;
  c.on('rate_limited', (secs) => { limited = secs; });
  const t0 = Date.now();
  const r = await c.chat.postMessage({channel: 'alerts', text: 'after limit'});
  assert.strictEqual(r.ok, true);
  assert.strictEqual(limited, 1);
  assert.ok(Date.now() - t0 >= 900, 'waited for Retry-After');
  const state = await control('GET', '/_fake/state');
  assert.deepStrictEqual(state.messages.map((m) => m.text), ['after limit']);
  assert.strictEqual(state.calls.filter((x) => x.method === 'chat.postMessage').length, 2);
  // rejectRateLimitedCalls surfaces the 429 instead.
  await control('POST', '/_fake/fail', {method: 'chat.postMessage', status: 429, retry_after: 3});
  await assert.rejects(client('xoxb-t', {rejectRateLimitedCalls: true}).chat.postMessage({channel: 'alerts', text: 'x'}),
    (e) => e.code === ErrorCode.RateLimitedError && e.retryAfter === 3);
});
