#!/usr/bin/env node
// A stateful fake of the parts of Elasticsearch's REST API that the
// elasticsearch sink and Elastic's official clients use: cluster info
// (GET /), the bulk API (index, create, update with doc / doc_as_upsert /
// upsert, delete; per-item results), the get, index and count APIs, with
// documents kept in memory. Shapes follow Elasticsearch 8's REST reference
// (see README.md beside this file). Node builtins only: no install needed.
//
//   node es_fake.js [--port N]     prints "es_fake listening on <port>"
//
// Control endpoints under /_fake/ inject per-item failures, simulate an
// outage (503 or dropped connections) and read documents and stats back.
'use strict';

const http = require('http');

let state;
function reset() {
  state = {
    indices: new Map(),  // index -> Map(id -> {source, version, seqNo, routing})
    seqNo: 0,
    itemFaults: [],      // {status, type, reason, count (-1 forever), id?, index?}
    outage: null,        // {until?, requests?, mode: 'status'|'reset', status}
    version: '8.19.1',   // GET /'s version.number; below 8 a bulk `_type` is taken
    stats: {bulkRequests: 0, bulkItems: 0, itemStatus: {}, refusedRequests: 0, lastBulk: null},
  };
}
reset();

// ------------------------------------------------------------------ helpers

// Elasticsearch 8 answers every request with x-elastic-product; the official
// client v8 refuses a 2xx answer without it. A client asking for the
// compatible-with media type gets it back.
function send(req, res, status, body) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const accept = String(req.headers.accept || '');
  const type = accept.includes('vnd.elasticsearch+json')
    ? 'application/vnd.elasticsearch+json;compatible-with=8' : 'application/json';
  res.writeHead(status, {'Content-Type': type, 'Content-Length': Buffer.byteLength(text),
    'X-elastic-product': 'Elasticsearch'});
  res.end(req.method === 'HEAD' ? undefined : text);
}

// Elasticsearch's error body: {error: {root_cause, type, reason, ...}, status}.
function esError(type, reason, extra) {
  const cause = Object.assign({type, reason}, extra || {});
  return {error: Object.assign({root_cause: [cause]}, cause), status: undefined};
}
function sendError(req, res, status, type, reason, extra) {
  const body = esError(type, reason, extra);
  body.status = status;
  send(req, res, status, body);
}

function index(name) {
  if (!state.indices.has(name)) state.indices.set(name, new Map());
  return state.indices.get(name);
}

// Deep merge of a partial document into a source, as the update API does
// for `doc` (objects merged key by key, everything else replaced).
function merge(target, doc) {
  let changed = false;
  for (const [k, v] of Object.entries(doc)) {
    const cur = target[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' &&
        !Array.isArray(cur)) {
      changed = merge(cur, v) || changed;
    } else if (JSON.stringify(cur) !== JSON.stringify(v)) {
      target[k] = v;
      changed = true;
    }
  }
  return changed;
}

const defaultFaultType = {
  400: ['mapper_parsing_exception', 'failed to parse'],
  404: ['document_missing_exception', 'document missing'],
  409: ['version_conflict_engine_exception', 'version conflict'],
  429: ['es_rejected_execution_exception', 'rejected execution of coordinating operation'],
  500: ['illegal_state_exception', 'injected failure'],
  503: ['unavailable_shards_exception', 'primary shard is not active'],
};

// The first injected item fault matching (index, id), consumed.
function takeItemFault(idx, id) {
  for (let i = 0; i < state.itemFaults.length; i++) {
    const f = state.itemFaults[i];
    if (f.id !== undefined && f.id !== id) continue;
    if (f.index !== undefined && f.index !== idx) continue;
    if (f.count > 0 && --f.count === 0) state.itemFaults.splice(i, 1);
    return f;
  }
  return null;
}

// ------------------------------------------------------------------ bulk

function shards() { return {total: 2, successful: 1, failed: 0}; }

function written(action, idx, id, doc, result, status) {
  return {[action]: {_index: idx, _id: id, _version: doc.version, result, _shards: shards(),
    _seq_no: doc.seqNo, _primary_term: 1, status}};
}
function failedItem(action, idx, id, status, type, reason) {
  return {[action]: {_index: idx, _id: id, status,
    error: {type, reason, index_uuid: 'fake-uuid-' + idx, shard: '0', index: idx}}};
}

function store(docs, id, source, meta) {
  const prev = docs.get(id);
  const routing = meta.routing === undefined ? (prev && prev.routing) : meta.routing;
  const type = meta._type === undefined ? (prev && prev.type) : meta._type;
  const doc = {source, version: prev ? prev.version + 1 : 1, seqNo: state.seqNo++, routing, type};
  docs.set(id, doc);
  return doc;
}

// Runs one action of a bulk request; returns its item.
function runAction(action, meta, body) {
  const idx = meta._index;
  let id = meta._id === undefined ? undefined : String(meta._id);
  const fault = takeItemFault(idx, id);
  if (fault) {
    const [type, reason] = defaultFaultType[fault.status] || ['exception', 'injected failure'];
    return failedItem(action, idx, id, fault.status, fault.type || type,
      fault.reason || `[${id}]: ${reason}`);
  }
  const docs = index(idx);
  if (action === 'index' || action === 'create') {
    if (id === undefined) id = 'auto-' + state.seqNo;
    const prev = docs.get(id);
    if (action === 'create' && prev) {
      return failedItem(action, idx, id, 409, 'version_conflict_engine_exception',
        `[${id}]: version conflict, document already exists (current version [${prev.version}])`);
    }
    const doc = store(docs, id, body, meta);
    return written(action, idx, id, doc, prev ? 'updated' : 'created', prev ? 200 : 201);
  }
  if (action === 'delete') {
    const prev = docs.get(id);
    if (!prev) return {delete: {_index: idx, _id: id, _version: 1, result: 'not_found',
      _shards: shards(), _seq_no: state.seqNo++, _primary_term: 1, status: 404}};
    docs.delete(id);
    return written('delete', idx, id, {version: prev.version + 1, seqNo: state.seqNo++},
      'deleted', 200);
  }
  // update
  if (!body || (body.doc === undefined && body.upsert === undefined && body.script === undefined)) {
    return failedItem(action, idx, id, 400, 'action_request_validation_exception',
      'Validation Failed: 1: script or doc is missing;');
  }
  const prev = docs.get(id);
  if (!prev) {
    const source = body.doc_as_upsert ? body.doc : body.upsert;
    if (source === undefined) {
      return failedItem(action, idx, id, 404, 'document_missing_exception', `[${id}]: document missing`);
    }
    const doc = store(docs, id, JSON.parse(JSON.stringify(source)), meta);
    return written(action, idx, id, doc, 'created', 201);
  }
  const source = JSON.parse(JSON.stringify(prev.source));
  const changed = merge(source, body.doc || {});
  if (!changed && body.detect_noop !== false) {
    return written(action, idx, id, prev, 'noop', 200);
  }
  const doc = store(docs, id, source, meta);
  return written(action, idx, id, doc, 'updated', 200);
}

const ACTIONS = new Set(['index', 'create', 'update', 'delete']);

// POST /_bulk, /<index>/_bulk: NDJSON pairs of action and source lines.
function bulk(req, res, pathIndex, query, text) {
  const started = Date.now();
  const lines = text.split('\n');
  const ops = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    let action;
    try { action = JSON.parse(line); } catch (e) {
      return sendError(req, res, 400, 'x_content_parse_exception', `[${i + 1}:1] malformed action/metadata line`);
    }
    const names = Object.keys(action || {});
    if (names.length !== 1 || !ACTIONS.has(names[0])) {
      return sendError(req, res, 400, 'illegal_argument_exception',
        `Malformed action/metadata line [${i + 1}], expected one of [create, delete, index, update] but found [${names[0]}]`);
    }
    const meta = Object.assign({}, action[names[0]]);
    if (meta._type !== undefined && majorVersion() >= 8) {
      // Elasticsearch 8 removed mapping types.
      return sendError(req, res, 400, 'illegal_argument_exception',
        `Action/metadata line [${i + 1}] contains an unknown parameter [_type]`);
    }
    if (meta._index === undefined) meta._index = pathIndex;
    if (meta.routing === undefined && query.get('routing') !== null) meta.routing = query.get('routing');
    if (meta._index === undefined) {
      return sendError(req, res, 400, 'action_request_validation_exception',
        'Validation Failed: 1: index is missing;');
    }
    if (meta._id !== undefined && Buffer.byteLength(String(meta._id)) > 512) {
      return sendError(req, res, 400, 'action_request_validation_exception',
        `Validation Failed: 1: id [${meta._id}] is too long, must be no longer than 512 bytes but was: ${Buffer.byteLength(String(meta._id))};`);
    }
    if (names[0] !== 'index' && names[0] !== 'create' && meta._id === undefined) {
      return sendError(req, res, 400, 'action_request_validation_exception',
        'Validation Failed: 1: id is missing;');
    }
    let body;
    if (names[0] !== 'delete') {
      while (++i < lines.length && lines[i].trim() === '');
      if (i >= lines.length) {
        return sendError(req, res, 400, 'illegal_argument_exception', 'The bulk request must be terminated by a newline [\\n]');
      }
      try { body = JSON.parse(lines[i]); } catch (e) {
        return sendError(req, res, 400, 'x_content_parse_exception', `[${i + 1}:1] failed to parse source`);
      }
    }
    ops.push([names[0], meta, body]);
  }
  if (ops.length === 0) {
    return sendError(req, res, 400, 'action_request_validation_exception',
      'Validation Failed: 1: no requests added;');
  }
  const items = ops.map(([a, m, b]) => runAction(a, m, b));
  let errors = false;
  for (const item of items) {
    const r = Object.values(item)[0];
    state.stats.itemStatus[r.status] = (state.stats.itemStatus[r.status] || 0) + 1;
    if (r.error) errors = true;
  }
  state.stats.bulkRequests++;
  state.stats.bulkItems += items.length;
  state.stats.lastBulk = {path: req.url.split('?')[0], query: Object.fromEntries(query),
    contentType: req.headers['content-type'] || null, items: items.length};
  send(req, res, 200, {took: Date.now() - started, errors, items});
}

function majorVersion() { return Number(state.version.split('.')[0]); }

// ------------------------------------------------------------------ documents

function getDoc(req, res, idx, id) {
  const docs = state.indices.get(idx);
  if (!docs) {
    return sendError(req, res, 404, 'index_not_found_exception', `no such index [${idx}]`,
      {'resource.type': 'index_expression', 'resource.id': idx, index: idx});
  }
  const doc = docs.get(id);
  if (!doc) return send(req, res, 404, {_index: idx, _id: id, found: false});
  const out = {_index: idx, _id: id, _version: doc.version, _seq_no: doc.seqNo, _primary_term: 1,
    found: true, _source: doc.source};
  if (doc.routing !== undefined) out._routing = doc.routing;
  send(req, res, 200, out);
}

function putDoc(req, res, idx, id, text, query) {
  let body;
  try { body = JSON.parse(text); } catch (e) {
    return sendError(req, res, 400, 'mapper_parsing_exception', 'failed to parse');
  }
  const item = runAction('index', {_index: idx, _id: id,
    routing: query.get('routing') === null ? undefined : query.get('routing')}, body).index;
  if (item.error) return sendError(req, res, item.status, item.error.type, item.error.reason);
  delete item.status;
  send(req, res, item.result === 'created' ? 201 : 200, item);
}

function clusterInfo(req, res) {
  send(req, res, 200, {
    name: 'es-fake', cluster_name: 'sluice-es-fake', cluster_uuid: 'c2x1aWNlLWVzLWZha2U',
    version: {number: state.version, build_flavor: 'default', build_type: 'tar',
      build_hash: '0000000000000000000000000000000000000000', build_date: '2025-01-01T00:00:00.000Z',
      build_snapshot: false, lucene_version: '9.12.0',
      minimum_wire_compatibility_version: '7.17.0', minimum_index_compatibility_version: '7.0.0'},
    tagline: 'You Know, for Search',
  });
}

// ------------------------------------------------------------------ control

function control(req, res, path, text) {
  let body = {};
  if (text) {
    try { body = JSON.parse(text); } catch (e) { return send(req, res, 400, {error: 'bad JSON'}); }
  }
  if (path === '/_fake/reset' && req.method === 'POST') {
    reset();
    return send(req, res, 200, {ok: true});
  }
  if (path === '/_fake/item_faults' && req.method === 'POST') {
    // {status, count? (1; -1 forever), id?, index?, type?, reason?}
    if (!Number.isInteger(body.status)) return send(req, res, 400, {error: 'status required'});
    state.itemFaults.push({status: body.status, count: body.count === undefined ? 1 : body.count,
      id: body.id === undefined ? undefined : String(body.id), index: body.index,
      type: body.type, reason: body.reason});
    return send(req, res, 200, {ok: true});
  }
  if (path === '/_fake/config' && req.method === 'POST') {
    // {version?: "6.8.23"}
    if (body.version !== undefined) state.version = String(body.version);
    return send(req, res, 200, {ok: true});
  }
  if (path === '/_fake/item_faults' && req.method === 'DELETE') {
    state.itemFaults = [];
    return send(req, res, 200, {ok: true});
  }
  if (path === '/_fake/outage' && req.method === 'POST') {
    // {ms?, requests?, mode? ('status' | 'reset'), status? (503)}
    state.outage = {until: body.ms === undefined ? undefined : Date.now() + body.ms,
      requests: body.requests, mode: body.mode || 'status', status: body.status || 503};
    return send(req, res, 200, {ok: true});
  }
  if (path === '/_fake/outage' && req.method === 'DELETE') {
    state.outage = null;
    return send(req, res, 200, {ok: true});
  }
  if (path === '/_fake/stats' && req.method === 'GET') return send(req, res, 200, state.stats);
  const m = /^\/_fake\/docs\/([^/]+)$/.exec(path);
  if (m && req.method === 'GET') {
    const out = {};
    for (const [id, d] of state.indices.get(decodeURIComponent(m[1])) || []) {
      out[id] = {source: d.source, version: d.version, routing: d.routing === undefined ? null : d.routing,
        type: d.type === undefined ? null : d.type};
    }
    return send(req, res, 200, out);
  }
  send(req, res, 404, {error: 'no such control endpoint ' + req.method + ' ' + path});
}

// True (and the answer given) while an outage is on.
function inOutage(req, res) {
  const o = state.outage;
  if (!o) return false;
  if ((o.until !== undefined && Date.now() >= o.until) || o.requests === 0) {
    state.outage = null;
    return false;
  }
  if (o.requests !== undefined) o.requests--;
  state.stats.refusedRequests++;
  if (o.mode === 'reset') {
    req.socket.destroy();
    return true;
  }
  sendError(req, res, o.status, 'cluster_block_exception',
    'blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];');
  return true;
}

// ------------------------------------------------------------------ routing

function route(req, res, text) {
  const url = new URL(req.url, 'http://fake');
  const path = url.pathname;
  if (path.startsWith('/_fake/')) return control(req, res, path, text);
  if (inOutage(req, res)) return;
  const parts = path.split('/').filter((p) => p !== '').map(decodeURIComponent);
  const m = req.method;
  if (parts.length === 0 && (m === 'GET' || m === 'HEAD')) return clusterInfo(req, res);
  if ((m === 'POST' || m === 'PUT') && parts.length === 1 && parts[0] === '_bulk') {
    return bulk(req, res, undefined, url.searchParams, text);
  }
  if ((m === 'POST' || m === 'PUT') && parts.length === 2 && parts[1] === '_bulk') {
    return bulk(req, res, parts[0], url.searchParams, text);
  }
  if (parts.length === 3 && parts[1] === '_doc') {
    if (m === 'GET' || m === 'HEAD') return getDoc(req, res, parts[0], parts[2]);
    if (m === 'PUT' || m === 'POST') return putDoc(req, res, parts[0], parts[2], text, url.searchParams);
  }
  if (parts.length === 2 && parts[1] === '_doc' && m === 'POST') {
    return putDoc(req, res, parts[0], undefined, text, url.searchParams);
  }
  if (parts.length === 2 && parts[1] === '_refresh' && (m === 'POST' || m === 'GET')) {
    return send(req, res, 200, {_shards: {total: 2, successful: 1, failed: 0}});
  }
  if (parts.length === 2 && parts[1] === '_count' && (m === 'GET' || m === 'POST')) {
    const docs = state.indices.get(parts[0]);
    if (!docs) return sendError(req, res, 404, 'index_not_found_exception', `no such index [${parts[0]}]`);
    return send(req, res, 200, {count: docs.size, _shards: {total: 1, successful: 1, skipped: 0, failed: 0}});
  }
  sendError(req, res, 400, 'illegal_argument_exception',
    `request [${path}] contains unrecognized parameters or method [${m}]`);
}

const utf8 = new TextDecoder('utf-8', {fatal: true});

function main() {
  const i = process.argv.indexOf('--port');
  const port = i >= 0 ? Number(process.argv[i + 1]) : 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let text = null;
      try {
        text = utf8.decode(Buffer.concat(chunks));
      } catch (e) {
        // Elasticsearch's JSON parser refuses bytes that are not UTF-8 (for an
        // update action already while reading the bulk request).
        return sendError(req, res, 400, 'x_content_parse_exception', 'Invalid UTF-8 start byte');
      }
      try {
        route(req, res, text);
      } catch (e) {
        sendError(req, res, 500, 'exception', String(e && e.stack || e));
      }
    });
  });
  server.keepAliveTimeout = 30000;
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write('es_fake listening on ' + server.address().port + '\n');
  });
}

main();
