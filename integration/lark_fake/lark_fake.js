// A stateful fake of the Lark (Feishu) open platform endpoints Sluice's lark
// and lark_channel receivers call (https://open.larksuite.com/document):
// auth/v3/tenant_access_token/internal, im/v1/chats (list, paged),
// im/v1/messages (create). Node builtins only. Run as
//   node integration/lark_fake/lark_fake.js --port N   (0: any; prints "listening on <port>")
// Replies are {"code":0,"msg":"success",...} or, as Lark, a non-zero code:
// 10014 (app secret invalid) / 10003 (invalid app_id) with HTTP 200 from the
// token endpoint; 99991663 (invalid access token) with HTTP 400;
// 230002 (bot not in chat) / 230001 (invalid receive_id) with HTTP 400.
// Injected rate limits are HTTP 429 with code 99991400 and the
// x-ogw-ratelimit-reset header.
//
// Control endpoints (JSON; integration/fake_server/fake_server.js serves them):
//   POST /_fake/reset
//   POST /_fake/setup {apps:[{app_id, app_secret}], chats:[{chat_id, name, member}],
//                      users:[{email}]}
//   POST /_fake/fail {path (substring), status, code, reset, times}
//   GET  /_fake/state {messages, tokens_issued, calls}
'use strict';

const crypto = require('node:crypto');
const fake = require('../fake_server/fake_server.js');

const {send} = fake;
const state = {};  // fresh() below, refilled in place on /_fake/reset

function tenant(req) {
  const auth = String(req.headers.authorization || '');
  return auth.startsWith('Bearer ') ? state.tokens[auth.slice(7)] : undefined;
}

function api(req, res, url, raw) {
  let body = {};
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw);
    } catch (e) {
      return send(res, 400, {code: 9499, msg: 'bad json'});
    }
  }
  const p = url.pathname.replace(/\/+$/, '');
  state.calls.push({method: req.method, path: p});
  const f = fake.takeFailure(state, (x) => p.includes(x.path));
  if (f) {
    return send(res, f.status || 429, {code: f.code || 99991400, msg: 'request trigger frequency limit'},
      {'x-ogw-ratelimit-reset': String(f.reset === undefined ? 1 : f.reset)});
  }
  if (p === '/open-apis/auth/v3/tenant_access_token/internal' && req.method === 'POST') {
    const app = state.apps[body.app_id];
    if (!app) return send(res, 200, {code: 10003, msg: 'invalid param'});
    if (app.app_secret !== body.app_secret) return send(res, 200, {code: 10014, msg: 'app secret invalid'});
    const token = 't-' + crypto.randomBytes(8).toString('hex');
    state.tokens[token] = body.app_id;
    state.tokens_issued++;
    return send(res, 200, {code: 0, msg: 'ok', tenant_access_token: token, expire: 7200});
  }
  const app = tenant(req);
  if (!app) return send(res, 400, {code: 99991663, msg: 'Invalid access token for authorization'});
  if (p === '/open-apis/im/v1/chats' && req.method === 'GET') {
    const size = Math.min(Number(url.searchParams.get('page_size') || 20), 100);
    const start = Number(url.searchParams.get('page_token') || 0);
    const mine = state.chats.filter((c) => c.member !== false);
    const items = mine.slice(start, start + size).map((c) => ({chat_id: c.chat_id, name: c.name}));
    const more = start + size < mine.length;
    return send(res, 200, {code: 0, msg: 'success',
      data: {items, has_more: more, page_token: more ? String(start + size) : ''}});
  }
  if (p === '/open-apis/im/v1/messages' && req.method === 'POST') {
    const type = url.searchParams.get('receive_id_type');
    let to;
    if (type === 'chat_id') {
      const chat = state.chats.find((c) => c.chat_id === body.receive_id);
      if (!chat) return send(res, 400, {code: 230001, msg: 'invalid receive_id'});
      if (chat.member === false) return send(res, 400, {code: 230002, msg: 'bot is not in the chat'});
      to = chat.chat_id;
    } else if (type === 'email') {
      if (!state.users.find((u) => u.email === body.receive_id)) {
        return send(res, 400, {code: 230001, msg: 'invalid receive_id'});
      }
      to = body.receive_id;
    } else {
      return send(res, 400, {code: 99992402, msg: 'field validation failed: receive_id_type'});
    }
    let content;
    try {
      content = JSON.parse(body.content);
    } catch (e) {
      return send(res, 400, {code: 230001, msg: 'invalid content'});
    }
    const id = 'om_' + crypto.randomBytes(6).toString('hex');
    state.messages.push({message_id: id, app_id: app, receive_id_type: type, receive_id: to,
      msg_type: body.msg_type, content});
    return send(res, 200, {code: 0, msg: 'success', data: {message_id: id, msg_type: body.msg_type,
      chat_id: type === 'chat_id' ? to : 'oc_dm', create_time: String(Date.now())}});
  }
  return send(res, 404, {code: 404, msg: 'not found'});
}

fake.serve({
  state,
  fresh: () => ({apps: {}, tokens: {}, chats: [], users: [], failures: [], messages: [],
    tokens_issued: 0, calls: []}),
  setup: (body) => {
    for (const a of body.apps || []) state.apps[a.app_id] = {app_secret: a.app_secret};
    for (const c of body.chats || []) state.chats.push(c);
    for (const u of body.users || []) state.users.push(u);
  },
  view: () => ({messages: state.messages, tokens_issued: state.tokens_issued, calls: state.calls}),
  api,
});
