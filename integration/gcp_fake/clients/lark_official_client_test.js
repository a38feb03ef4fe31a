// Drives integration/lark_fake with Lark's official Node.js SDK
// (@larksuiteoapi/node-sdk, pinned in package.json) to show that the fake
// answers as Lark's open platform does for what Sluice's lark receivers use:
// the SDK's own tenant_access_token fetch (self-built app), im.chat.list
// paging, im.message.create to a chat and to an email, a wrong app secret
// (code 10014), a chat the bot is not in (code 230002), and an injected HTTP
// 429 rate limit. Run by official_clients_test.sh with NODE_PATH set.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const lark = require('@larksuiteoapi/node-sdk');
const {startFake} = require('./test_support');

let fake, base;

async function control(method, p, body) {
  const res = await fetch(base + p, {method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: {'Content-Type': 'application/json'}});
  assert.strictEqual(res.status, 200, `control ${method} ${p}`);
  return res.json();
}

// A token cache per client (the SDK's default one is process-wide, and the
// fake forgets its tokens on reset).
function freshCache() {
  const m = new Map();
  return {
    get: async (k) => {
      const v = m.get(k);
      return v && (!v.expire || v.expire > Date.now()) ? v.value : undefined;
    },
    set: async (k, value, expire) => {
      m.set(k, {value, expire});
      return true;
    },
  };
}

function client(appSecret = 'sec') {
  return new lark.Client({appId: 'cli_1', appSecret, domain: base, loggerLevel: lark.LoggerLevel.fatal,
    cache: freshCache()});
}

test.before(async () => {
  ({process: fake, base} = await startFake(path.join(__dirname, '..', '..', 'lark_fake', 'lark_fake.js')));
});

test.after(() => fake.kill());

test.beforeEach(async () => {
  await control('POST', '/_fake/reset');
  const chats = [];
  for (let i = 0; i < 25; i++) chats.push({chat_id: 'oc_' + i, name: 'chat-' + i});
  chats.push({chat_id: 'oc_out', name: 'outside', member: false});
  await control('POST', '/_fake/setup', {apps: [{app_id: 'cli_1', app_secret: 'sec'}], chats,
    users: [{email: 'ops@acme.io'}]});
});

test('the SDK fetches a tenant token itself and lists chats page by page', async () => {
  const c = client();
  const names = [];
  let pageToken;
  for (;;) {
    const r = await c.im.chat.list({params: {page_size: 10, page_token: pageToken}});
    assert.strictEqual(r.code, 0);
    names.push(...r.data.items.map((x) => x.name));
    if (!r.data.has_more) break;
    pageToken = r.data.page_token;
  }
  assert.strictEqual(names.length, 25);
  assert.ok(!names.includes('outside'));
  const state = await control('GET', '/_fake/state');
  assert.strictEqual(state.tokens_issued, 1);  // cached by the SDK across calls
});

test('im.message.create to a chat and to an email lands in the fake', async () => {
  const c = client();
  const r = await c.im.message.create({params: {receive_id_type: 'chat_id'},
    data: {receive_id: 'oc_3', msg_type: 'text', content: JSON.stringify({text: 'disk full'})}});
  assert.strictEqual(r.code, 0);
  assert.match(r.data.message_id, /^om_/);
  const card = {header: {title: {tag: 'plain_text', content: 'alert'}}, elements: []};
  await c.im.message.create({params: {receive_id_type: 'email'},
    data: {receive_id: 'ops@acme.io', msg_type: 'interactive', content: JSON.stringify(card)}});
  const state = await control('GET', '/_fake/state');
  assert.deepStrictEqual(state.messages.map((m) => [m.receive_id_type, m.receive_id, m.msg_type, m.content]),
    [['chat_id', 'oc_3', 'text', {text: 'disk full'}], ['email', 'ops@acme.io', 'interactive', card]]);
});

test('a wrong app secret and a chat the bot is not in are refused with Lark codes', async () => {
  const wrong = await fetch(base + '/open-apis/auth/v3/tenant_access_token/internal', {method: 'POST',
    headers: {'Content-Type': 'application/json'}, body: JSON.stringify({app_id: 'cli_1', app_secret: 'x'})});
  assert.strictEqual((await wrong.json()).code, 10014);
  await assert.rejects(client('x').im.chat.list({params: {page_size: 10}}));
  await assert.rejects(client().im.message.create({params: {receive_id_type: 'chat_id'},
    data: {receive_id: 'oc_out', msg_type: 'text', content: '{"text":"x"}'}}),
  (e) => e.response && e.response.status === 400 && e.response.data.code === 230002);
  assert.deepStrictEqual((await control('GET', '/_fake/state')).messages, []);
});

test('an injected rate limit is HTTP 429 with code 99991400', async () => {
  await control('POST', '/_fake/fail', {path: '/im/v1/messages', status: 429, reset: 1});
  const c = client();
  await assert.rejects(c.im.message.create({params: {receive_id_type: 'chat_id'},
    data: {receive_id: 'oc_1', msg_type: 'text', content: '{"text":"x"}'}}),
  (e) => e.response && e.response.status === 429 && e.response.data.code === 99991400 &&
      e.response.headers['x-ogw-ratelimit-reset'] === '1');
  const r = await c.im.message.create({params: {receive_id_type: 'chat_id'},
    data: {receive_id: 'oc_1', msg_type: 'text', content: '{"text":"again"}'}});
  assert.strictEqual(r.code, 0);
  assert.deepStrictEqual((await control('GET', '/_fake/state')).messages.map((m) => m.content.text), ['again']);
});
