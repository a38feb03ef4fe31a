// Cloud Logging v2 and IAM roles.get for gcp_fake.js: entries.list (POST
// /v2/entries:list) over seeded Cloud Audit Logs entries, with the filter
// subset Guardian's BigQuery activity import sends, ordering and paging;
// IAM roles.get (GET /v1/roles/<name>) with includedPermissions. Shapes:
// cloud.google.com/logging/docs/reference/v2/rest/v2/entries/list,
// cloud.google.com/logging/docs/view/logging-query-language and
// cloud.google.com/iam/docs/reference/rest/v1/roles/get (see README.md).
// Control: POST /_fake/logging/entries {entries: [LogEntry]} appends
// entries (insertId and logName defaulted); POST /_fake/roles
// {<role>: [permissions]} sets roles. Failures: /_fake/faults with path
// "/v2/entries:list" (gcp_fake.js).
'use strict';

// `h`: helpers of gcp_fake.js: {state: () => state, send, gerr}.
module.exports = function cloudLogging(h) {
  const {send, gerr} = h;
  let entries = [];   // LogEntry JSON, as seeded
  let roles = {};     // role name -> includedPermissions
  let nextId = 1;

  function defaultRoles() {
    const viewer = ['bigquery.datasets.get', 'bigquery.tables.get', 'bigquery.tables.getData',
      'bigquery.tables.list'];
    const editor = viewer.concat(['bigquery.tables.create', 'bigquery.tables.update',
      'bigquery.tables.updateData', 'bigquery.tables.delete']);
    const owner = editor.concat(['bigquery.datasets.update', 'bigquery.datasets.delete']);
    return {'roles/bigquery.dataViewer': viewer, 'roles/bigquery.dataEditor': editor,
      'roles/bigquery.dataOwner': owner,
      'roles/bigquery.jobUser': ['bigquery.jobs.create']};
  }

  function reset() { entries = []; roles = defaultRoles(); nextId = 1; }
  reset();

  // ---------------------------------------------------------------- filter
  // The logging query language's subset Guardian sends: comparisons joined
  // by AND; a comparison is <field path> <op> <value>, op one of = : >= <=
  // > < !=, value a "quoted string", a bare word, or ("a" OR "b" ...).
  // ':' is "has": a substring match on text (so a dataset's resourceName
  // matches its tables). Anything else is INVALID_ARGUMENT, as Cloud
  // Logging answers a filter it cannot parse.

  function tokenize(s) {
    const out = [];
    let i = 0;
    while (i < s.length) {
      const c = s[i];
      if (/\s/.test(c)) { i++; continue; }
      if (c === '"') {
        let v = '';
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === '\\' && i + 1 < s.length) i++;
          v += s[i++];
        }
        if (i >= s.length) throw new Error('unterminated string');
        i++;
        out.push({t: 'str', v});
        continue;
      }
      if (c === '(' || c === ')') { out.push({t: c}); i++; continue; }
      const op = /^(>=|<=|!=|=|:|>|<)/.exec(s.slice(i));
      if (op) { out.push({t: 'op', v: op[1]}); i += op[1].length; continue; }
      const w = /^[A-Za-z0-9_.\-@/]+/.exec(s.slice(i));
      if (!w) throw new Error('unexpected character ' + JSON.stringify(c));
      out.push({t: 'word', v: w[0]});
      i += w[0].length;
    }
    return out;
  }

  function parse(filter) {
    const toks = tokenize(filter || '');
    let i = 0;
    const terms = [];
    while (i < toks.length) {
      if (terms.length) {
        if (!(toks[i].t === 'word' && toks[i].v === 'AND')) throw new Error('expected AND');
        i++;
      }
      const field = toks[i++];
      const op = toks[i++];
      if (!field || field.t !== 'word' || !op || op.t !== 'op') throw new Error('expected a comparison');
      const values = [];
      if (toks[i] && toks[i].t === '(') {
        i++;
        for (;;) {
          const v = toks[i++];
          if (!v || (v.t !== 'str' && v.t !== 'word')) throw new Error('expected a value');
          values.push(v.v);
          const n = toks[i++];
          if (n && n.t === ')') break;
          if (!(n && n.t === 'word' && n.v === 'OR')) throw new Error('expected OR or )');
        }
      } else {
        const v = toks[i++];
        if (!v || (v.t !== 'str' && v.t !== 'word')) throw new Error('expected a value');
        values.push(v.v);
      }
      terms.push({field: field.v, op: op.v, values});
    }
    return terms;
  }

  function get(obj, path) {
    let v = obj;
    for (const k of path.split('.')) {
      if (v === null || typeof v !== 'object') return undefined;
      v = v[k];
    }
    return v;
  }

  function compare(field, actual, op, want) {
    if (actual === undefined || actual === null) return op === '!=';
    if (field === 'timestamp') {
      const a = Date.parse(actual), w = Date.parse(want);
      if (Number.isNaN(w)) throw new Error('bad timestamp ' + JSON.stringify(want));
      return {'=': a === w, '!=': a !== w, '>=': a >= w, '<=': a <= w, '>': a > w, '<': a < w,
        ':': a === w}[op];
    }
    const s = String(actual);
    switch (op) {
      case '=': return s === want;
      case '!=': return s !== want;
      case ':': return s.toLowerCase().includes(String(want).toLowerCase());
      case '>=': return s >= want;
      case '<=': return s <= want;
      case '>': return s > want;
      case '<': return s < want;
    }
    return false;
  }

  function matches(e, terms) {
    return terms.every((t) => {
      const actual = get(e, t.field);
      return t.op === '!='
        ? t.values.every((w) => compare(t.field, actual, t.op, w))
        : t.values.some((w) => compare(t.field, actual, t.op, w));
    });
  }

  // ---------------------------------------------------------------- routes

  function list(req, res, body) {
    const r = JSON.parse(body || '{}');
    const names = r.resourceNames || [];
    if (!Array.isArray(names) || names.length === 0) {
      return gerr(res, 400, 'INVALID_ARGUMENT', 'resourceNames: at least one is required', 'badRequest');
    }
    let terms;
    try {
      terms = parse(r.filter);
    } catch (e) {
      return gerr(res, 400, 'INVALID_ARGUMENT', 'Unparseable filter: ' + e.message, 'badRequest');
    }
    const order = String(r.orderBy || 'timestamp asc').trim();
    if (order !== 'timestamp asc' && order !== 'timestamp desc') {
      return gerr(res, 400, 'INVALID_ARGUMENT', 'orderBy: only "timestamp asc" or "timestamp desc"', 'badRequest');
    }
    const max = h.state().config.maxPageSize;
    const size = Math.min(Number(r.pageSize) || 50, 1000, max);
    const start = r.pageToken ? Number(Buffer.from(String(r.pageToken), 'base64').toString()) : 0;
    if (!Number.isInteger(start) || start < 0) {
      return gerr(res, 400, 'INVALID_ARGUMENT', 'pageToken: invalid', 'badRequest');
    }
    const hit = entries.filter((e) => names.some((n) => e.logName.startsWith(n + '/logs/')) &&
      matches(e, terms));
    hit.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) ||
      (a.insertId < b.insertId ? -1 : 1));
    if (order === 'timestamp desc') hit.reverse();
    const out = {entries: hit.slice(start, start + size)};
    if (start + size < hit.length) out.nextPageToken = Buffer.from(String(start + size)).toString('base64');
    return send(res, 200, out);
  }

  function role(req, res, name) {
    const perms = roles[name];
    if (!perms) return gerr(res, 404, 'NOT_FOUND', 'The role named ' + name + ' was not found.', 'notFound');
    return send(res, 200, {name, title: name, includedPermissions: perms, stage: 'GA',
      etag: 'AA=='});
  }

  // True when `path` is one of this module's; answers it.
  function route(req, res, path, body) {
    if (path === '/v2/entries:list' && req.method === 'POST') { list(req, res, body); return true; }
    const m = /^\/v1\/((?:projects\/[^/]+\/|organizations\/[^/]+\/)?roles\/[^/:]+)$/.exec(path);
    if (m && req.method === 'GET') { role(req, res, m[1]); return true; }
    return false;
  }

  function control(req, res, path, args) {
    if (path === '/_fake/logging/entries' && req.method === 'GET') { send(res, 200, {entries}); return true; }
    if (path === '/_fake/logging/entries') {
      for (const e of args.entries || []) {
        const entry = Object.assign({insertId: 'entry-' + nextId++,
          logName: 'projects/' + (args.project || 'p') + '/logs/cloudaudit.googleapis.com%2Fdata_access',
          receiveTimestamp: e.timestamp, severity: 'INFO'}, e);
        entries.push(entry);
      }
      send(res, 200, {count: entries.length});
      return true;
    }
    if (path === '/_fake/roles') { Object.assign(roles, args); send(res, 200, roles); return true; }
    return false;
  }

  return {reset, route, control};
};
