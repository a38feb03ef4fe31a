// Drives integration/slack_fake with Slack's official Node.js client
// (@slack/web-api, pinned in package.json) to show that the fake answers as
// Slack's Web API does for the methods Sluice's slack receivers use:
// oauth.v2.access (a code is good once; a wrong secret or code is refused),
// chat.postMessage (by channel name and ID, with blocks; each message its own
// ts), the errors the client raises as platform errors (invalid_auth,
// channel_not_found), and an injected HTTP 429 + Retry-After, which the
// client waits out and retries. And for interactive approvals: users.info
// (the email only with users:read.email), chat.update (of a posted message;
// message_not_found, cant_update_message), views.open (a trigger is good
// once and for 3 s; invalid_trigger_id, exchanged_trigger_id,
// expired_trigger_id; a view Slack would refuse is invalid_arguments),
// chat.postEphemeral (user_not_in_channel), and injected failures of these.
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
    users: [{id: 'U7', email: 'ops@acme.io'}, {id: 'U8', email: 'lead@acme.io', team_id: 'T1', name: 'lead'}],
  });
});

const platformError = (code) => (e) => e.code === ErrorCode.PlatformError && e.data.error === code;
const TS = /^\d{10}\.\d{6}$/;  // Slack's message timestamps: "1700000000.000100"
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A bot token of team T1 (acme) with all scopes, another team's, and `scoped`.
async function tokens(scoped = {}) {
  await control('POST', '/_fake/setup', {tokens: [
    {access_token: 'xoxb-t', team: {id: 'T1', name: 'acme'}},
    {access_token: 'xoxb-other', team: {id: 'T2', name: 'other'}},
    ...Object.entries(scoped).map(([t, scopes]) => ({access_token: t, team: {id: 'T1', name: 'acme'}, scopes})),
  ]});
}

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

test('users.info answers the user, with the email only given users:read.email', async () => {
  await tokens({'xoxb-noemail': ['chat:write', 'users:read'], 'xoxb-email': ['users:read', 'users:read.email'],
    'xoxb-nousers': ['chat:write']});
  const r = await client('xoxb-t').users.info({user: 'U8'});
  assert.strictEqual(r.ok, true);
  assert.deepStrictEqual(r.user, {id: 'U8', team_id: 'T1', name: 'lead', profile: {email: 'lead@acme.io'}});
  // team_id and name default to the caller's team and the email's local part.
  const d = await client('xoxb-email').users.info({user: 'U7'});
  assert.deepStrictEqual(d.user, {id: 'U7', team_id: 'T1', name: 'ops', profile: {email: 'ops@acme.io'}});
  const n = await client('xoxb-noemail').users.info({user: 'U8'});
  assert.deepStrictEqual(n.user.profile, {});
  assert.strictEqual(n.user.id, 'U8');
  await assert.rejects(client('xoxb-nousers').users.info({user: 'U8'}),
    (e) => platformError('missing_scope')(e) && e.data.needed === 'users:read');
  await assert.rejects(client('xoxb-t').users.info({user: 'U404'}), platformError('user_not_found'));
  // Scopes granted at the OAuth exchange are the token's.
  await control('POST', '/_fake/setup', {apps: [{client_id: 'cid', client_secret: 'csecret', code: 'code-2',
    access_token: 'xoxb-granted', team: {id: 'T1', name: 'acme'}, scopes: ['chat:write', 'users:read']}]});
  const g = await client(undefined).oauth.v2.access({client_id: 'cid', client_secret: 'csecret', code: 'code-2'});
  assert.strictEqual(g.scope, 'chat:write,users:read');
  assert.deepStrictEqual((await client('xoxb-granted').users.info({user: 'U8'})).user.profile, {});
});

test('chat.postMessage gives each message its own ts, even in the same millisecond', async () => {
  await tokens();
  const c = client('xoxb-t');
  const rs = await Promise.all([1, 2, 3, 4, 5].map((i) => c.chat.postMessage({channel: 'C1', text: `m${i}`})));
  const ts = rs.map((r) => r.ts);
  for (const t of ts) assert.match(t, TS);
  assert.strictEqual(new Set(ts).size, 5, ts.join(' '));
  const state = await control('GET', '/_fake/state');
  assert.deepStrictEqual(state.messages.map((m) => m.ts).sort(), [...ts].sort());
});

test('chat.update replaces a posted message; unknown ts and another team are refused', async () => {
  await tokens();
  const c = client('xoxb-t');
  const buttons = [{type: 'actions', block_id: 'approval', elements: [
    {type: 'button', action_id: 'approve', text: {type: 'plain_text', text: 'Approve'}, value: 'a1', style: 'primary'},
    {type: 'button', action_id: 'reject', text: {type: 'plain_text', text: 'Reject'}, value: 'a1', style: 'danger'}]}];
  const posted = await c.chat.postMessage({channel: 'alerts', text: 'appeal a1 waits', blocks: buttons});
  const done = [{type: 'section', text: {type: 'mrkdwn', text: 'Approved by <@U8>'}}];
  const r = await c.chat.update({channel: posted.channel, ts: posted.ts, text: 'appeal a1 approved', blocks: done});
  assert.strictEqual(r.ok, true);
  assert.strictEqual(r.channel, 'C1');
  assert.strictEqual(r.ts, posted.ts);
  assert.strictEqual(r.text, 'appeal a1 approved');
  let state = await control('GET', '/_fake/state');
  assert.strictEqual(state.messages.length, 1);
  assert.strictEqual(state.messages[0].text, 'appeal a1 approved');
  assert.deepStrictEqual(state.messages[0].blocks, done);
  assert.deepStrictEqual(state.updates, [{channel: 'C1', ts: posted.ts, team: 'acme', text: 'appeal a1 approved',
    blocks: done}]);
  // Text alone keeps the blocks, as Slack documents.
  await c.chat.update({channel: 'C1', ts: posted.ts, text: 'again'});
  state = await control('GET', '/_fake/state');
  assert.deepStrictEqual(state.messages[0].blocks, done);
  assert.strictEqual(state.updates.length, 2);
  await assert.rejects(c.chat.update({channel: 'C1', ts: '1700000000.000100', text: 'x'}),
    platformError('message_not_found'));
  await assert.rejects(client('xoxb-other').chat.update({channel: 'C1', ts: posted.ts, text: 'x'}),
    platformError('cant_update_message'));
  state = await control('GET', '/_fake/state');
  assert.strictEqual(state.updates.length, 2);
  assert.strictEqual(state.messages[0].text, 'again');
});

const modal = (title = 'Reject appeal') => ({type: 'modal', callback_id: 'reject_reason', private_metadata: 'a1',
  title: {type: 'plain_text', text: title}, submit: {type: 'plain_text', text: 'Reject'},
  blocks: [{type: 'input', block_id: 'reason', label: {type: 'plain_text', text: 'Reason'},
    element: {type: 'plain_text_input', action_id: 'reason', multiline: true}}]});

test('views.open opens a modal once per trigger, within its 3 s', async () => {
  await tokens();
  await control('POST', '/_fake/setup', {triggers: [{trigger_id: 't-good', user: 'U8'},
    {trigger_id: 't-old', user: 'U8', expires_ms: 50}]});
  await sleep(100);
  const c = client('xoxb-t');
  const r = await c.views.open({trigger_id: 't-good', view: modal()});
  assert.strictEqual(r.ok, true);
  assert.match(r.view.id, /^V[0-9A-Z]+$/);
  assert.strictEqual(r.view.type, 'modal');
  assert.strictEqual(r.view.callback_id, 'reject_reason');
  assert.strictEqual(r.view.private_metadata, 'a1');
  assert.deepStrictEqual(r.view.state, {values: {}});
  assert.strictEqual(r.view.team_id, 'T1');
  assert.deepStrictEqual(r.view.title, {type: 'plain_text', text: 'Reject appeal'});
  await assert.rejects(c.views.open({trigger_id: 't-good', view: modal()}), platformError('exchanged_trigger_id'));
  await assert.rejects(c.views.open({trigger_id: 't-old', view: modal()}), platformError('expired_trigger_id'));
  await assert.rejects(c.views.open({trigger_id: 't-none', view: modal()}), platformError('invalid_trigger_id'));
  const state = await control('GET', '/_fake/state');
  assert.deepStrictEqual(state.views.map((v) => [v.trigger_id, v.user, v.view.id, v.view.callback_id]),
    [['t-good', 'U8', r.view.id, 'reject_reason']]);
});

test('views.open refuses a view Slack would refuse, without using up the trigger', async () => {
  await tokens();
  await control('POST', '/_fake/setup', {triggers: [{trigger_id: 't-1', user: 'U8'}]});
  const c = client('xoxb-t');
  const refused = (e) => platformError('invalid_arguments')(e) &&
      Array.isArray(e.data.response_metadata.messages) && e.data.response_metadata.messages.length > 0;
  await assert.rejects(c.views.open({trigger_id: 't-1', view: modal('x'.repeat(25))}), refused);
  await assert.rejects(c.views.open({trigger_id: 't-1', view: {...modal(), type: 'home'}}), refused);
  const {blocks, ...noBlocks} = modal();
  await assert.rejects(c.views.open({trigger_id: 't-1', view: noBlocks}), refused);
  const {title, ...noTitle} = modal();
  await assert.rejects(c.views.open({trigger_id: 't-1', view: noTitle}), refused);
  await assert.rejects(c.views.open({trigger_id: 't-1', view: '{not json'}), refused);
  assert.deepStrictEqual((await control('GET', '/_fake/state')).views, []);
  // 24 characters is the longest title; the view also comes as a JSON object.
  const res = await fetch(base + '/api/views.open', {method: 'POST',
    headers: {'Content-Type': 'application/json; charset=utf-8', Authorization: 'Bearer xoxb-t'},
    body: JSON.stringify({trigger_id: 't-1', view: modal('y'.repeat(24))})});
  const r = await res.json();
  assert.strictEqual(r.ok, true, JSON.stringify(r));
  assert.strictEqual(r.view.title.text, 'y'.repeat(24));
});

test('chat.postEphemeral shows a message to one user of the channel', async () => {
  await tokens();
  const c = client('xoxb-t');
  const r = await c.chat.postEphemeral({channel: 'C1', user: 'U8', text: 'only approvers may approve',
    blocks: [{type: 'section', text: {type: 'mrkdwn', text: 'only approvers may approve'}}]});
  assert.strictEqual(r.ok, true);
  assert.match(r.message_ts, TS);
  await assert.rejects(c.chat.postEphemeral({channel: 'C1', user: 'U404', text: 'x'}),
    platformError('user_not_in_channel'));
  await assert.rejects(c.chat.postEphemeral({channel: 'C404', user: 'U8', text: 'x'}),
    platformError('channel_not_found'));
  const state = await control('GET', '/_fake/state');
  assert.deepStrictEqual(state.ephemeral, [{channel: 'C1', user: 'U8', text: 'only approvers may approve',
    blocks: [{type: 'section', text: {type: 'mrkdwn', text: 'only approvers may approve'}}]}]);
  assert.deepStrictEqual(state.messages, []);
});

test('injected failures apply to the interactive methods; reset forgets their state', async () => {
  await tokens();
  await control('POST', '/_fake/setup', {triggers: [{trigger_id: 't-1', user: 'U8'}]});
  const c = client('xoxb-t');
  await control('POST', '/_fake/fail', {method: 'views.open', error: 'expired_trigger_id'});
  await assert.rejects(c.views.open({trigger_id: 't-1', view: modal()}), platformError('expired_trigger_id'));
  await c.views.open({trigger_id: 't-1', view: modal()});  // the injected failure left the trigger good
  await control('POST', '/_fake/fail', {method: 'users.info', error: 'ratelimited', times: 2});
  await assert.rejects(c.users.info({user: 'U8'}), platformError('ratelimited'));
  await assert.rejects(c.users.info({user: 'U8'}), platformError('ratelimited'));
  assert.strictEqual((await c.users.info({user: 'U8'})).user.id, 'U8');
  const posted = await c.chat.postMessage({channel: 'C1', text: 'waits'});
  await control('POST', '/_fake/fail', {method: 'chat.update', status: 429, retry_after: 7});
  await assert.rejects(client('xoxb-t', {rejectRateLimitedCalls: true}).chat.update({channel: 'C1', ts: posted.ts,
    text: 'x'}), (e) => e.code === ErrorCode.RateLimitedError && e.retryAfter === 7);
  await control('POST', '/_fake/fail', {method: 'chat.postEphemeral', status: 500});
  await assert.rejects(c.chat.postEphemeral({channel: 'C1', user: 'U8', text: 'x'}),
    (e) => e.code === ErrorCode.HTTPError && e.statusCode === 500);
  await c.chat.postEphemeral({channel: 'C1', user: 'U8', text: 'y'});
  let state = await control('GET', '/_fake/state');
  assert.strictEqual(state.views.length, 1);
  assert.deepStrictEqual(state.updates, []);
  assert.deepStrictEqual(state.ephemeral.map((x) => x.text), ['y']);
  assert.strictEqual(state.messages[0].text, 'waits');
  await control('POST', '/_fake/reset');
  state = await control('GET', '/_fake/state');
  for (const k of ['messages', 'updates', 'views', 'ephemeral']) assert.deepStrictEqual(state[k], [], k);
  await tokens();
  await control('POST', '/_fake/setup', {triggers: [{trigger_id: 't-1', user: 'U8'}]});
  await c.views.open({trigger_id: 't-1', view: modal()});  // reset forgot the trigger's use
});

test('malformed blocks JSON is refused as invalid_blocks_format, and the fake keeps serving', async () => {
  await control('POST', '/_fake/setup', {tokens: [{access_token: 'xoxb-t', team: {id: 'T1', name: 'acme'}}]});
  const c = client('xoxb-t');
  await assert.rejects(c.chat.postMessage({channel: 'alerts', text: 'x', blocks: '[{'}),
    (e) => e.code === ErrorCode.PlatformError && e.data.error === 'invalid_blocks_format');
  const r = await c.chat.postMessage({channel: 'alerts', text: 'still up'});
  assert.strictEqual(r.ok, true);
});
