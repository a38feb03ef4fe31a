// A stateful fake of the Slack Web API methods Sluice's slack and
// slack_channel receivers call (https://api.slack.com/web): oauth.v2.access,
// chat.postMessage, conversations.list, users.conversations,
// users.lookupByEmail, auth.test; and those interactive approvals call:
// users.info, chat.update, views.open, chat.postEphemeral. Node builtins
// only. Run as
//   node integration/slack_fake/slack_fake.js --port N   (0: any; prints "listening on <port>")
// API under /api/<method>; arguments as Slack accepts them: form-encoded or
// JSON body, or query string; the token as "Authorization: Bearer" (or a
// `token` argument). Replies are HTTP 200 {"ok":true,...} or
// {"ok":false,"error":"<code>"} (not_authed, invalid_auth, invalid_code,
// bad_client_secret, channel_not_found, not_in_channel, users_not_found,
// no_text, user_not_found, missing_scope, message_not_found,
// cant_update_message, invalid_trigger_id, exchanged_trigger_id,
// expired_trigger_id, invalid_arguments, user_not_in_channel), except
// injected rate limits: HTTP 429 with Retry-After, as Slack sends them.
// Message timestamps (ts, message_ts) are unique, like Slack's
// "1700000000.000100": seconds, a dot and 6 digits.
//
// Scopes: a token set up with `scopes` has only those (oauth.v2.access
// answers them as `scope`); one without has all. users.info needs
// users:read (else missing_scope) and answers profile.email only with
// users:read.email, as Slack does.
// chat.update: `channel` is the message's channel ID and `ts` its ts; only a
// token of the team that posted the message may update it; blocks or text
// left out keep the message's previous ones.
// views.open: a trigger (set up below) is good once (exchanged_trigger_id
// after) and for `expires_ms` (default 3000, Slack's 3 s) after its setup;
// the view must be a modal with a title (plain text, at most 24 characters)
// and blocks (invalid_arguments with response_metadata.messages otherwise).
// A refused call does not use up the trigger.
//
// Control endpoints (JSON; integration/fake_server/fake_server.js serves them):
//   POST /_fake/reset                        forget everything
//   POST /_fake/setup {apps:[{client_id, client_secret, code, access_token,
//        team:{id,name}, scopes}], tokens:[{access_token, team, scopes}],
//        channels:[{id,name,is_member}], users:[{id, email, team_id, name}],
//        triggers:[{trigger_id, user, expires_ms}]}
//        (users.info defaults team_id to the caller's team and name to the
//        email's local part)
//   POST /_fake/fail {method, error | status, retry_after, times}
//        the next `times` (default 1) calls of `method` fail: `error` as
//        {"ok":false,"error":...}, `status` (e.g. 429, 500) as that HTTP status
//   GET  /_fake/state                        {messages, updates, views,
//        ephemeral, exchanged, calls}
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

// Slack's message timestamps: "<seconds>.<6 digits>", unique per message.
// From the clock in microseconds, one more than the last when the clock has
// not moved on (two messages in one millisecond).
let lastTs = 0;
function nextTs() {
  lastTs = Math.max(Date.now() * 1000, lastTs + 1);
  return `${Math.floor(lastTs / 1e6)}.${String(lastTs % 1e6).padStart(6, '0')}`;
}

// A channel argument (ID or name, "#" optional) or a user ID (a DM), as
// chat.postMessage and chat.postEphemeral take it; undefined when unknown.
function findChannel(arg) {
  const name = String(arg || '').replace(/^#/, '');
  return state.channels.find((c) => c.id === name || c.name === name) ||
      state.users.find((u) => u.id === name);
}

// A JSON argument (blocks, attachments, view) as a string or already parsed.
const parse = (v) => (typeof v === 'string' ? JSON.parse(v) : v);

// Whether `token` has `scope`: tokens set up without scopes have all.
function hasScope(token, scope) {
  const {scopes} = state.tokens[token];
  return !scopes || scopes.includes(scope);
}

// Slack's check of a views.open view, the few rules the fake knows: the
// reasons (response_metadata.messages) it is refused, none when it is good.
function viewProblems(view) {
  if (!view || typeof view !== 'object') return ['[ERROR] must provide an object [json-pointer:/view]'];
  const problems = [];
  if (view.type !== 'modal') problems.push('[ERROR] must be modal [json-pointer:/view/type]');
  const title = view.title && view.title.text;
  if (typeof title !== 'string' || title === '') {
    problems.push('[ERROR] missing required field: title [json-pointer:/view/title]');
  } else if (title.length > 24) {
    problems.push('[ERROR] must be less than 25 characters [json-pointer:/view/title/text]');
  }
  if (!Array.isArray(view.blocks)) {
    problems.push('[ERROR] missing required field: blocks [json-pointer:/view/blocks]');
  }
  return problems;
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
    state.tokens[grant.access_token] = {team: grant.team, scopes: grant.scopes};
    state.exchanged.push({client_id: id, code: args.code, team: grant.team});
    return {ok: true, access_token: grant.access_token, token_type: 'bot',
      scope: grant.scopes ? grant.scopes.join(',') : 'chat:write',
      bot_user_id: 'UBOT', app_id: 'A1', team: grant.team, enterprise: null,
      authed_user: {id: 'U0'}};
  },
  'auth.test': (_args, token) => ({ok: true, team: state.tokens[token].team.name,
    team_id: state.tokens[token].team.id, user_id: 'UBOT'}),
  'conversations.list': () => ({ok: true, channels: state.channels,
    response_metadata: {next_cursor: ''}}),
  'users.conversations': () => ({ok: true, channels: state.channels.filter((c) => c.is_member),
    response_metadata: {next_cursor: ''}}),
  'users.lookupByEmail': (args) => {
    const u = state.users.find((x) => x.email === args.email);
    return u ? {ok: true, user: {id: u.id, profile: {email: u.email}}}
             : {ok: false, error: 'users_not_found'};
  },
  'users.info': (args, token) => {
    if (!hasScope(token, 'users:read')) {
      return {ok: false, error: 'missing_scope', needed: 'users:read',
        provided: state.tokens[token].scopes.join(',')};
    }
    const u = state.users.find((x) => x.id === args.user);
    if (!u) return {ok: false, error: 'user_not_found'};
    const profile = u.email !== undefined && hasScope(token, 'users:read.email') ? {email: u.email} : {};
    return {ok: true, user: {id: u.id, team_id: u.team_id || state.tokens[token].team.id,
      name: u.name || String(u.email || u.id).split('@')[0], profile}};
  },
  'chat.postMessage': (args, token) => {
    const ch = findChannel(args.channel);
    if (!ch) return {ok: false, error: 'channel_not_found'};
    if (ch.name !== undefined && ch.is_member === false) return {ok: false, error: 'not_in_channel'};
    if (!args.text && !args.blocks && !args.attachments) return {ok: false, error: 'no_text'};
    const {team} = state.tokens[token];
    const msg = {channel: ch.id, team: team.name, team_id: team.id, text: args.text,
      blocks: args.blocks ? parse(args.blocks) : undefined,
      attachments: args.attachments ? parse(args.attachments) : undefined,
      ts: nextTs()};
    state.messages.push(msg);
    return {ok: true, channel: ch.id, ts: msg.ts, message: {text: args.text}};
  },
  'chat.update': (args, token) => {
    const msg = state.messages.find((m) => m.channel === args.channel && m.ts === args.ts);
    if (!msg) {
      return {ok: false, error: findChannel(args.channel) ? 'message_not_found' : 'channel_not_found'};
    }
    if (msg.team_id !== state.tokens[token].team.id) return {ok: false, error: 'cant_update_message'};
    if (!args.text && !args.blocks && !args.attachments) return {ok: false, error: 'no_text'};
    // Left-out fields keep the message's previous ones, as Slack documents.
    if (args.text !== undefined) msg.text = args.text;
    if (args.blocks !== undefined) msg.blocks = parse(args.blocks);
    if (args.attachments !== undefined) msg.attachments = parse(args.attachments);
    state.updates.push({channel: msg.channel, ts: msg.ts, team: state.tokens[token].team.name,
      text: args.text, blocks: args.blocks !== undefined ? msg.blocks : undefined});
    return {ok: true, channel: msg.channel, ts: msg.ts, text: msg.text,
      message: {text: msg.text, blocks: msg.blocks}};
  },
  'views.open': (args, token) => {
    const trigger = state.triggers[args.trigger_id];
    if (!trigger) return {ok: false, error: 'invalid_trigger_id'};
    if (trigger.used) return {ok: false, error: 'exchanged_trigger_id'};
    if (Date.now() > trigger.expires_at) return {ok: false, error: 'expired_trigger_id'};
    let view;
    try {
      view = parse(args.view);
    } catch (e) {
      return {ok: false, error: 'invalid_arguments',
        response_metadata: {messages: ['[ERROR] invalid json [json-pointer:/view]']}};
    }
    const problems = viewProblems(view);
    if (problems.length > 0) {
      return {ok: false, error: 'invalid_arguments', response_metadata: {messages: problems}};
    }
    trigger.used = true;  // a trigger is good once
    const id = `V${String(++state.viewCount).padStart(8, '0')}`;
    const opened = {id, team_id: state.tokens[token].team.id, type: view.type, title: view.title,
      close: view.close || null, submit: view.submit || null, blocks: view.blocks,
      private_metadata: view.private_metadata || '', callback_id: view.callback_id || '',
      external_id: view.external_id || '', state: {values: {}}, hash: nextTs(),
      clear_on_close: !!view.clear_on_close, notify_on_close: !!view.notify_on_close,
      root_view_id: id, previous_view_id: null, app_id: 'A1', bot_id: 'BBOT'};
    state.views.push({trigger_id: args.trigger_id, user: trigger.user, view: opened});
    return {ok: true, view: opened};
  },
  'chat.postEphemeral': (args) => {
    const ch = findChannel(args.channel);
    if (!ch) return {ok: false, error: 'channel_not_found'};
    if (!state.users.some((u) => u.id === args.user)) return {ok: false, error: 'user_not_in_channel'};
    if (!args.text && !args.blocks && !args.attachments) return {ok: false, error: 'no_text'};
    state.ephemeral.push({channel: ch.id, user: args.user, text: args.text,
      blocks: args.blocks ? parse(args.blocks) : undefined});
    return {ok: true, message_ts: nextTs()};
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
  let reply;
  try {
    reply = methods[method](args, token, req);
  } catch (e) {
    // Malformed JSON in blocks or attachments: Slack's answer, not a crash.
    if (!(e instanceof SyntaxError)) throw e;
    reply = {ok: false, error: 'invalid_blocks_format'};
  }
  return send(res, 200, reply);
}

fake.serve({
  state,
  fresh: () => ({
    apps: {},       // client_id -> {client_secret, codes: {code: {access_token, team}}}
    tokens: {},     // access_token -> {team, scopes (undefined: all)}
    channels: [],   // [{id, name, is_member}]
    users: [],      // [{id, email, team_id, name}]
    triggers: {},   // trigger_id -> {user, expires_at (ms), used}
    failures: [],   // [{method, error, status, retry_after, times}]
    messages: [],   // chat.postMessage calls accepted (text and blocks as updated since)
    updates: [],    // chat.update calls accepted: [{channel, ts, team, text, blocks}]
    views: [],      // views.open calls accepted: [{trigger_id, user, view}]
    viewCount: 0,   // views opened, for their IDs
    ephemeral: [],  // chat.postEphemeral calls accepted: [{channel, user, text, blocks}]
    exchanged: [],  // [{client_id, code, team}]
    calls: [],      // [{method, token}]
  }),
  setup: (body) => {
    for (const a of body.apps || []) {
      const app = state.apps[a.client_id] ||
          (state.apps[a.client_id] = {client_secret: a.client_secret, codes: {}});
      app.codes[a.code] = {access_token: a.access_token, team: a.team, scopes: a.scopes};
    }
    for (const c of body.channels || []) state.channels.push({is_member: true, ...c});
    for (const u of body.users || []) state.users.push(u);
    for (const t of body.tokens || []) state.tokens[t.access_token] = {team: t.team, scopes: t.scopes};
    for (const t of body.triggers || []) {
      state.triggers[t.trigger_id] = {user: t.user,
        expires_at: Date.now() + (t.expires_ms === undefined ? 3000 : t.expires_ms), used: false};
    }
  },
  view: () => ({messages: state.messages, updates: state.updates, views: state.views,
    ephemeral: state.ephemeral, exchanged: state.exchanged, calls: state.calls}),
  api,
});
