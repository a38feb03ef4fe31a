// A stateful fake of the Slack Web API methods Sluice's slack and
// slack_channel receivers call (https://api.slack.com/web): oauth.v2.access,
// chat.postMessage, conversations.list, users.conversations,
// users.lookupByEmail, auth.test. Node builtins only. Run as
//   node integration/slack_fake/slack_fake.js --port N   (0: any; prints "listening on <port>")
// API under /api/<method>; arguments as Slack accepts them: form-encoded or
// JSON body, or query string; the token as "Authorization: Bearer" (or a
// `token` argument). Replies are HTTP 200 {"ok":true,...} or
// {"ok":false,"error":"<code>"} (not_authed, invalid_auth, invalid_code,
// bad_client_secret, channel_not_found, users_not_found, no_text), except
// injected rate limits: HTTP 429 with Retry-After, as Slack sends them.
//
// Control endpoints (JSON; integration/fake_server/fake_server.js serves them):
//   POST /_fake/reset                        forget everything
//   POST /_fake/setup {apps:[{client_id, client_secret, code, access_token,
//        team:{id,name}}], channels:[{id,name,is_member}], users:[{id,email}]}
//   POST /_fake/fail {method, error | status, retry_after, times}
//        the next `times` (default 1) calls of `method` fail: `error` as
//        {"ok":false,"error":...}, `status` (e.g. 429, 500) as that HTTP status
//   GET  /_fake/state                        {messages, exchanged, calls}
'use strict';

const {URLSearchParams} = require('node:url');
const fake = require('../fake_server/fake_server.js');

const {send} = fake;
const state = {};  // fresh() below, refilled in place on /_fake/reset

function parseArgs(req, raw, url) {
  const args = {};
  for (const [k, v] of url.searchParams) args[k] = v;
  const type = String(req.headers['content-type'] || '');
  if (raw.length > 0) {
    if (type.startsWith('application/json')) {
      try {
        Object.assign(args, JSON.parse(raw));
      } catch (e) {
        return null;
      }
    } else {
      for (const [k, v] of new URLSearchParams(raw)) args[k] = v;
    }
  }
  return args;
}

function bearer(req, args) {
  const auth = String(req.headers.authorization || '');
  if (auth.startsWith('Bearer ')) return auth.slice(7);
  return args.token;
}

function basic(req) {
  const auth = String(req.headers.authorization || '');
  if (!auth.startsWith('Basic ')) return null;
  const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString().split(':');
  return {id, secret};
}

// Methods: (args, token) -> reply object (ok added).
const methods = {
  'oauth.v2.access': (args, _token, req) => {
    const b = basic(req);
    const id = args.client_id || (b && b.id);
    const secret = args.client_secret || (b && b.secret);
    const app = state.apps[id];
    if (!app) return {ok: false, error: 'invalid_client_id'};
    if (app.client_secret !== secret) return {ok: false, error: 'bad_client_secret'};
    const grant = app.codes[args.code];
    if (!grant) return {ok: false, error: 'invalid_code'};
    delete app.codes[args.code];  // a code is good once
    state.tokens[grant.access_token] = grant.team;
    state.exchanged.push({client_id: id, code: args.code, team: grant.team});
    return {ok: true, access_token: grant.access_token, token_type: 'bot', scope: 'chat:write',
      bot_user_id: 'UBOT', app_id: 'A1', team: grant.team, enterprise: null,
      authed_user: {id: 'U0'}};
  },
  'auth.test': (_args, token) => ({ok: true, team: state.tokens[token].name,
    team_id: state.tokens[token].id, user_id: 'UBOT'}),
  'conversations.list': () => ({ok: true, channels: state.channels,
    response_metadata: {next_cursor: ''}}),
  'users.conversations': () => ({ok: true, channels: state.channels.filter((c) => c.is_member),
    response_metadata: {next_cursor: ''}}),
  'users.lookupByEmail': (args) => {
    const u = state.users.find((x) => x.email === args.email);
    return u ? {ok: true, user: {id: u.id, profile: {email: u.email}}}
             : {ok: false, error: 'users_not_found'};
  },
  'chat.postMessage': (args, token) => {
    const name = String(args.channel || '').replace(/^#/, '');
    const ch = state.channels.find((c) => c.id === name || c.name === name) ||
        state.users.find((u) => u.id === name);
    if (!ch) return {ok: false, error: 'channel_not_found'};
    if (ch.name !== undefined && ch.is_member === false) return {ok: false, error: 'not_in_channel'};
    if (!args.text && !args.blocks && !args.attachments) return {ok: false, error: 'no_text'};
    const parse = (v) => (typeof v === 'string' ? JSON.parse(v) : v);
    const msg = {channel: ch.id, team: state.tokens[token].name, text: args.text,
      blocks: args.blocks ? parse(args.blocks) : undefined,
      attachments: args.attachments ? parse(args.attachments) : undefined,
      ts: `${Date.now() / 1000}`};
    state.messages.push(msg);
    return {ok: true, channel: ch.id, ts: msg.ts, message: {text: args.text}};
  },
};

function api(req, res, url, raw) {
  const m = /^\/api\/([A-Za-z0-9_.]+)$/.exec(url.pathname);
  if (!m || !methods[m[1]]) return send(res, 404, {ok: false, error: 'unknown_method'});
  const method = m[1];
  const args = parseArgs(req, raw, url);
  if (args === null) return send(res, 200, {ok: false, error: 'invalid_json'});
  const token = bearer(req, args);
  state.calls.push({method, token: token ? 'set' : ''});
  const f = fake.takeFailure(state, (x) => x.method === method);
  if (f && f.status) {
    const headers = f.retry_after !== undefined ? {'Retry-After': String(f.retry_after)} : {};
    return send(res, f.status, {ok: false, error: f.status === 429 ? 'ratelimited' : 'fatal_error'},
      headers);
  }
  if (f && f.error) return send(res, 200, {ok: false, error: f.error});
  if (method !== 'oauth.v2.access') {
    if (!token) return send(res, 200, {ok: false, error: 'not_authed'});
    if (!state.tokens[token]) return send(res, 200, {ok: false, error: 'invalid_auth'});
  }
  return send(res, 200, methods[method](args, token, req));
}

fake.serve({
  state,
  fresh: () => ({
    apps: {},       // client_id -> {client_secret, codes: {code: {access_token, team}}}
    tokens: {},     // access_token -> team
    channels: [],   // [{id, name, is_member}]
    users: [],      // [{id, email}]
    failures: [],   // [{method, error, status, retry_after, times}]
    messages: [],   // chat.postMessage calls accepted
    exchanged: [],  // [{client_id, code, team}]
    calls: [],      // [{method, token}]
  }),
  setup: (body) => {
    for (const a of body.apps || []) {
      const app = state.apps[a.client_id] ||
          (state.apps[a.client_id] = {client_secret: a.client_secret, codes: {}});
      app.codes[a.code] = {access_token: a.access_token, team: a.team};
    }
    for (const c of body.channels || []) state.channels.push({is_member: true, ...c});
    for (const u of body.users || []) state.users.push(u);
    for (const t of body.tokens || []) state.tokens[t.access_token] = t.team;
  },
  view: () => ({messages: state.messages, exchanged: state.exchanged, calls: state.calls}),
  api,
});
