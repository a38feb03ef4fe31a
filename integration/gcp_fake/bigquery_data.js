// BigQuery v2 table data for gcp_fake.js: datasets.insert, tables.insert /
// patch / update with schema, timePartitioning, clustering and labels,
// tabledata.insertAll (per-row insertErrors, insertId de-duplication, type
// checks, skipInvalidRows / ignoreUnknownValues) and tabledata.list, plus the
// control endpoints /_fake/bq/row_errors and /_fake/bq/outage. Shapes follow
// cloud.google.com/bigquery/docs/reference/rest/v2 (see README.md).
'use strict';

// `h`: helpers of gcp_fake.js: {state: () => state, send, gerr, newEtag, newPolicy}.
module.exports = function bigqueryData(h) {
  const {send, gerr, newEtag, newPolicy} = h;
  let outage = null;      // {status} while every BigQuery call fails
  let rowErrors = [];     // [{field, equals, reason, message, count}]

  function resetData() { outage = null; rowErrors = []; }

  // ---------------------------------------------------------------- views

  function tableResource(p, d, t) {
    const out = {kind: 'bigquery#table', id: p + ':' + d.id + '.' + t.id, etag: t.etag,
      selfLink: '/bigquery/v2/projects/' + p + '/datasets/' + d.id + '/tables/' + t.id,
      tableReference: {projectId: p, datasetId: d.id, tableId: t.id}, type: 'TABLE',
      schema: {fields: t.schema || []}, numRows: String((t.rows || []).length),
      creationTime: String(t.created || Date.now()), lastModifiedTime: String(t.modified || Date.now()),
      location: d.location};
    if (t.labels && Object.keys(t.labels).length) out.labels = t.labels;
    if (t.timePartitioning) out.timePartitioning = t.timePartitioning;
    if (t.clustering) out.clustering = t.clustering;
    return out;
  }

  // ---------------------------------------------------------------- schema rules

  const TYPES = {INT64: 'INTEGER', FLOAT64: 'FLOAT', BOOL: 'BOOLEAN', STRUCT: 'RECORD'};
  const KNOWN = new Set(['STRING', 'BYTES', 'INTEGER', 'FLOAT', 'NUMERIC', 'BIGNUMERIC', 'BOOLEAN',
    'TIMESTAMP', 'DATE', 'TIME', 'DATETIME', 'GEOGRAPHY', 'JSON', 'RECORD']);

  // Normalised fields, or an error text (BigQuery answers 400 invalid).
  function checkFields(fields, where) {
    const names = new Set();
    const out = [];
    for (const f of fields || []) {
      const type = TYPES[String(f.type).toUpperCase()] || String(f.type).toUpperCase();
      if (!f.name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.name)) return 'Invalid field name "' + f.name + '"';
      if (names.has(f.name.toLowerCase())) return 'Field ' + f.name + ' already exists in schema';
      names.add(f.name.toLowerCase());
      if (!KNOWN.has(type)) return 'Invalid value for type: ' + f.type + ' is not a valid value';
      const g = {name: f.name, type, mode: (f.mode || 'NULLABLE').toUpperCase()};
      if (f.description) g.description = f.description;
      if (type === 'RECORD') {
        if (!f.fields || !f.fields.length) return 'Field ' + where + f.name + ' is type RECORD but has no schema';
        const sub = checkFields(f.fields, where + f.name + '.');
        if (typeof sub === 'string') return sub;
        g.fields = sub;
      }
      out.push(g);
    }
    return out;
  }

  // BigQuery lets a schema update only add NULLABLE/REPEATED fields (and
  // relax REQUIRED to NULLABLE); anything else is "Provided Schema does not
  // match Table".
  function compatible(old, next, table) {
    for (const o of old) {
      const n = next.find((x) => x.name === o.name);
      if (!n) return 'Provided Schema does not match Table ' + table + '. Field ' + o.name + ' is missing in new schema';
      if (n.type !== o.type) {
        return 'Provided Schema does not match Table ' + table + '. Field ' + o.name +
          ' has changed type from ' + o.type + ' to ' + n.type;
      }
      if (n.mode !== o.mode && !(o.mode === 'REQUIRED' && n.mode === 'NULLABLE')) {
        return 'Provided Schema does not match Table ' + table + '. Field ' + o.name +
          ' has changed mode from ' + o.mode + ' to ' + n.mode;
      }
      if (o.type === 'RECORD') {
        const e = compatible(o.fields, n.fields, table);
        if (e) return e;
      }
    }
    for (const n of next) {
      if (!old.find((x) => x.name === n.name) && n.mode === 'REQUIRED') {
        return 'Provided Schema does not match Table ' + table + '. Cannot add required field ' + n.name;
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- rows

  const bad = (loc, type, v) => ({reason: 'invalid', location: loc, debugInfo: '',
    message: 'Cannot convert value to ' + type + ' (bad value): ' + (typeof v === 'object' ? JSON.stringify(v) : v)});

  // One value to its stored form, or {error}.
  function convertScalar(f, v, loc) {
    switch (f.type) {
      case 'INTEGER':
        if ((typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v))) {
          return {value: String(v)};
        }
        return {error: bad(loc, 'integer', v)};
      case 'FLOAT': case 'NUMERIC': case 'BIGNUMERIC':
        if (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && !isNaN(Number(v)))) {
          return {value: Number(v)};
        }
        return {error: bad(loc, f.type === 'FLOAT' ? 'float' : 'numeric', v)};
      case 'BOOLEAN':
        if (typeof v === 'boolean') return {value: v};
        if (v === 'true' || v === 'false') return {value: v === 'true'};
        return {error: bad(loc, 'boolean', v)};
      case 'STRING': case 'DATE': case 'TIME': case 'DATETIME': case 'GEOGRAPHY':
        if (typeof v === 'object') return {error: bad(loc, 'string', v)};
        return {value: String(v)};
      case 'BYTES':
        if (typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v)) return {value: v};
        return {error: bad(loc, 'bytes', v)};
      case 'TIMESTAMP': {
        const ms = typeof v === 'number' ? v * 1000 : Date.parse(String(v).replace(' UTC', 'Z'));
        if (!Number.isFinite(ms)) return {error: bad(loc, 'timestamp', v)};
        return {value: Math.round(ms * 1000)};  // microseconds
      }
      case 'JSON':
        return {value: typeof v === 'string' ? v : JSON.stringify(v)};
    }
    return {error: bad(loc, f.type.toLowerCase(), v)};
  }

  function convertValue(f, v, loc, opts) {
    if (f.mode === 'REPEATED') {
      if (v === null || v === undefined) return {value: []};
      if (!Array.isArray(v)) return {error: {reason: 'invalid', location: loc, debugInfo: '',
        message: 'Array specified for non-repeated field: ' + f.name + '.'}};
      const out = [];
      for (let i = 0; i < v.length; i++) {
        const c = convertOne(f, v[i], loc + '[' + i + ']', opts);
        if (c.error) return c;
        out.push(c.value);
      }
      return {value: out};
    }
    if (Array.isArray(v)) return {error: bad(loc, f.type.toLowerCase(), v)};
    return convertOne(f, v, loc, opts);
  }

  function convertOne(f, v, loc, opts) {
    if (f.type !== 'RECORD') return convertScalar(f, v, loc);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return {error: bad(loc, 'record', v)};
    return convertRecord(f.fields, v, loc + '.', opts);
  }

  // Field lookup by name, exact or case-insensitive (BigQuery's names are),
  // built once per schema array.
  const byName = new WeakMap();
  function lookup(fields, key) {
    let m = byName.get(fields);
    if (!m) {
      m = new Map();
      for (const f of fields) { m.set(f.name, f); m.set(f.name.toLowerCase(), f); }
      byName.set(fields, m);
    }
    return m.get(key) || m.get(key.toLowerCase());
  }

  // A JSON row against `fields`: {value} in stored form, or {error}.
  function convertRecord(fields, json, prefix, opts) {
    const out = {};
    for (const key of Object.keys(json)) {
      const f = lookup(fields, key);
      if (!f) {
        if (opts.ignoreUnknownValues) continue;
        return {error: {reason: 'invalid', location: prefix + key, debugInfo: '',
          message: 'no such field: ' + prefix + key + '.'}};
      }
      if (json[key] === null || json[key] === undefined) continue;
      const c = convertValue(f, json[key], prefix + f.name, opts);
      if (c.error) return c;
      out[f.name] = c.value;
    }
    for (const f of fields) {
      if (f.mode === 'REQUIRED' && out[f.name] === undefined) {
        return {error: {reason: 'invalid', location: prefix + f.name, debugInfo: '',
          message: 'Missing required field: ' + prefix + f.name + '.'}};
      }
    }
    return {value: out};
  }

  // An injected error for this row (consumed), or null.
  function injected(json) {
    for (const e of rowErrors) {
      if (e.count === 0) continue;
      if (e.field !== undefined && String(json[e.field]) !== String(e.equals)) continue;
      if (e.count > 0) e.count--;
      return {reason: e.reason || 'invalid', location: e.field || '', debugInfo: '',
        message: e.message || 'injected row error'};
    }
    return null;
  }

  function insertAll(res, t, body) {
    const req = JSON.parse(body || '{}');
    const rows = req.rows || [];
    if (!rows.length) return gerr(res, 400, 'INVALID_ARGUMENT', 'No rows present in the request.', 'invalid');
    const opts = {ignoreUnknownValues: Boolean(req.ignoreUnknownValues)};
    const results = rows.map((r) => {
      const e = injected(r.json || {});
      if (e) return {error: e};
      return convertRecord(t.schema || [], r.json || {}, '', opts);
    });
    const insertErrors = [];
    const anyBad = results.some((r) => r.error);
    results.forEach((r, index) => {
      if (r.error) insertErrors.push({index, errors: [r.error]});
      else if (anyBad && !req.skipInvalidRows) {
        insertErrors.push({index, errors: [{reason: 'stopped', location: '', debugInfo: '', message: ''}]});
      }
    });
    if (!anyBad || req.skipInvalidRows) {
      t.rows = t.rows || [];
      t.insertIds = t.insertIds || new Set();
      results.forEach((r, i) => {
        if (r.error) return;
        const id = rows[i].insertId;
        if (id) {
          if (t.insertIds.has(id)) return;  // best-effort de-duplication, as BigQuery
          t.insertIds.add(id);
        }
        t.rows.push(r.value);
      });
    }
    const out = {kind: 'bigquery#tableDataInsertAllResponse'};
    if (insertErrors.length) out.insertErrors = insertErrors;
    return send(res, 200, out);
  }

  // ---------------------------------------------------------------- tabledata.list

  function cell(f, v, int64ts) {
    if (f.mode === 'REPEATED') return {v: (v || []).map((x) => cell(Object.assign({}, f, {mode: 'NULLABLE'}), x, int64ts))};
    if (v === undefined || v === null) return {v: null};
    if (f.type === 'RECORD') return {v: {f: f.fields.map((s) => cell(s, v[s.name], int64ts))}};
    if (f.type === 'TIMESTAMP') return {v: int64ts ? String(v) : String(v / 1e6)};
    return {v: String(v)};
  }

  function list(res, t, query) {
    const all = t.rows || [];
    const start = Number(query.get('pageToken') || query.get('startIndex') || 0);
    const size = Math.min(Number(query.get('maxResults') || 100000), 100000);
    const int64ts = query.get('formatOptions.useInt64Timestamp') === 'true';
    const rows = all.slice(start, start + size).map((r) => ({f: (t.schema || []).map((f) => cell(f, r[f.name], int64ts))}));
    const out = {kind: 'bigquery#tableDataList', etag: newEtag(), totalRows: String(all.length), rows};
    if (start + size < all.length) out.pageToken = String(start + size);
    return send(res, 200, out);
  }

  // ---------------------------------------------------------------- routes

  function createDataset(res, project, body) {
    const req = JSON.parse(body || '{}');
    const id = req.datasetReference && req.datasetReference.datasetId;
    if (!id) return gerr(res, 400, 'INVALID_ARGUMENT', 'Required parameter is missing', 'required');
    const st = h.state();
    st.bq[project] = st.bq[project] || {datasets: {}};
    if (st.bq[project].datasets[id]) {
      return gerr(res, 409, 'ALREADY_EXISTS', 'Already Exists: Dataset ' + project + ':' + id, 'duplicate');
    }
    const now = Date.now();
    st.bq[project].datasets[id] = {id, labels: req.labels || {}, location: req.location || 'US',
      etag: newEtag(), access: req.access || [], created: now, modified: now, tables: {}};
    return h.datasetView(res, project, st.bq[project].datasets[id]);
  }

  function createTable(res, p, d, body) {
    const req = JSON.parse(body || '{}');
    const id = req.tableReference && req.tableReference.tableId;
    if (!id) return gerr(res, 400, 'INVALID_ARGUMENT', 'Required parameter is missing', 'required');
    if (d.tables[id]) {
      return gerr(res, 409, 'ALREADY_EXISTS', 'Already Exists: Table ' + p + ':' + d.id + '.' + id, 'duplicate');
    }
    const schema = checkFields((req.schema || {}).fields || [], '');
    if (typeof schema === 'string') return gerr(res, 400, 'INVALID_ARGUMENT', schema, 'invalid');
    if (req.timePartitioning && req.timePartitioning.field) {
      const f = schema.find((x) => x.name === req.timePartitioning.field);
      if (!f || !['TIMESTAMP', 'DATE', 'DATETIME'].includes(f.type)) {
        return gerr(res, 400, 'INVALID_ARGUMENT', 'The field specified for partitioning cannot be found in the schema or is not a time column', 'invalid');
      }
    }
    for (const c of ((req.clustering || {}).fields || [])) {
      if (!schema.find((x) => x.name === c)) {
        return gerr(res, 400, 'INVALID_ARGUMENT', 'The field specified for clustering cannot be found in the schema.  Invalid field: ' + c, 'invalid');
      }
    }
    const now = Date.now();
    const t = {id, labels: req.labels || {}, etag: newEtag(), policy: newPolicy(), schema, rows: [],
      insertIds: new Set(), created: now, modified: now};
    if (req.timePartitioning) t.timePartitioning = req.timePartitioning;
    if (req.clustering) t.clustering = req.clustering;
    d.tables[id] = t;
    return send(res, 200, tableResource(p, d, t));
  }

  function patchTable(req, res, p, d, t, body) {
    const patch = JSON.parse(body || '{}');
    const name = p + ':' + d.id + '.' + t.id;
    if (patch.schema) {
      const schema = checkFields(patch.schema.fields || [], '');
      if (typeof schema === 'string') return gerr(res, 400, 'INVALID_ARGUMENT', schema, 'invalid');
      const e = compatible(t.schema || [], schema, name);
      if (e) return gerr(res, 400, 'INVALID_ARGUMENT', e, 'invalid');
      t.schema = schema;
    }
    if (patch.timePartitioning && JSON.stringify(patch.timePartitioning) !== JSON.stringify(t.timePartitioning)) {
      return gerr(res, 400, 'INVALID_ARGUMENT', 'Cannot change partitioning spec for ' + name, 'invalid');
    }
    if (patch.labels) t.labels = patch.labels;
    if (patch.clustering !== undefined) t.clustering = patch.clustering || undefined;
    t.etag = newEtag();
    t.modified = Date.now();
    return send(res, 200, tableResource(p, d, t));
  }

  // Handles the routes this module owns; false for the others.
  function route(req, res, path, query, body) {
    if (outage) {
      gerr(res, outage.status, outage.status === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE',
        'The service is currently unavailable.', 'backendError');
      return true;
    }
    let m = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets$/.exec(path);
    if (m && req.method === 'POST') { createDataset(res, m[1], body); return true; }
    m = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)\/tables(?:\/([^/:]+)(\/insertAll|\/data)?)?$/.exec(path);
    if (!m) return false;
    const st = h.state();
    const d = st.bq[m[1]] && st.bq[m[1]].datasets[m[2]];
    if (!m[3]) {
      if (req.method !== 'POST') return false;
      if (!d) gerr(res, 404, 'NOT_FOUND', 'Not found: Dataset ' + m[1] + ':' + m[2], 'notFound');
      else createTable(res, m[1], d, body);
      return true;
    }
    const t = d && d.tables[m[3]];
    if (!t) {
      gerr(res, 404, 'NOT_FOUND', 'Not found: Table ' + m[1] + ':' + m[2] + '.' + m[3], 'notFound');
      return true;
    }
    if (m[4] === '/insertAll' && req.method === 'POST') { insertAll(res, t, body); return true; }
    if (m[4] === '/data' && req.method === 'GET') { list(res, t, query); return true; }
    if (!m[4] && req.method === 'GET') { send(res, 200, tableResource(m[1], d, t)); return true; }
    if (!m[4] && (req.method === 'PATCH' || req.method === 'PUT')) {
      patchTable(req, res, m[1], d, t, body);
      return true;
    }
    if (!m[4] && req.method === 'DELETE') { delete d.tables[m[3]]; res.writeHead(204); res.end(); return true; }
    return false;
  }

  // /_fake/bq/... control endpoints; false when not one of them.
  function control(req, res, path, args) {
    if (path === '/_fake/bq/row_errors' && req.method === 'DELETE') { rowErrors = []; send(res, 200, {}); return true; }
    if (path === '/_fake/bq/row_errors') {
      // {field?, equals?, reason? ("invalid"), message?, count? (1; -1 forever)}
      rowErrors.push(Object.assign({count: 1}, args));
      send(res, 200, {});
      return true;
    }
    if (path === '/_fake/bq/outage') {
      // {enabled: bool, status? (503)}
      outage = args.enabled === false ? null : {status: args.status || 503};
      send(res, 200, {outage: Boolean(outage)});
      return true;
    }
    const rows = /^\/_fake\/bq\/rows\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
    if (rows) {
      // The stored rows of a table (TIMESTAMP as microseconds), without a token.
      const st = h.state();
      const d = st.bq[rows[1]] && st.bq[rows[1]].datasets[rows[2]];
      const t = d && d.tables[rows[3]];
      if (!t) send(res, 404, {error: 'no such table'});
      else send(res, 200, {schema: t.schema, rows: t.rows});
      return true;
    }
    return false;
  }

  return {route, control, resetData, tableResource};
};
