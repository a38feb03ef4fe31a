#!/usr/bin/env node
// A stateful fake of the Google Cloud REST APIs that Sluice's GCP access
// providers and the GCS dead-letter writer use: the OAuth2 token endpoint,
// BigQuery v2 (datasets, tables, dataset access entries, table IAM, and in
// bigquery_data.js table schemas, insertAll and tabledata.list), Cloud
// Storage JSON v1 (buckets, bucket IAM, object uploads and downloads), Cloud Resource Manager v1 (project and organization IAM), IAM v1
// (roles:queryGrantableRoles, and in cloud_logging.js roles.get) and Cloud
// Logging v2 (entries.list, in cloud_logging.js). One process serves all of them on one port;
// the request and response shapes follow Google's REST references (see
// README.md beside this file). Node builtins only: no install needed.
//
//   node gcp_fake.js [--port N]     prints "gcp_fake listening on <port>"
//
// Control endpoints under /_fake/ seed state, mint service-account keys,
// inject failures (403, 409, 412, 429, 5xx, delays) and read state back.
'use strict';

const http = require('http');
const crypto = require('crypto');
const bigqueryData = require('./bigquery_data');
const cloudLogging = require('./cloud_logging');

let state;
function reset() {
  state = {
    keys: {},          // client_email -> {publicKey, kid}
    tokens: {},        // access token -> {email, expires}
    bq: {},            // project -> {datasets: {id -> dataset}}
    buckets: {},       // name -> {project, labels, location, policy}
    crm: {projects: {}, organizations: {}},  // id -> {policy, ...}
    grantable: defaultGrantable(),
    faults: [],
    // lower-cased email or domain -> the form first written (or seeded):
    // Google keeps a principal's canonical casing, whatever casing a later
    // setIamPolicy sends (security review F-H2).
    principals: {},
    // keepMembers: members ("user:a@x.com", any casing) that a write may not
    // remove: the write answers 200 and the member stays bound.
    config: {maxPageSize: 1000, tokenLifetime: 3600, requireAuth: true, keepMembers: []},
    stats: {tokenRequests: 0, requests: {}},
  };
  if (bqData) bqData.resetData();
  if (logging) logging.reset();
}

function defaultGrantable() {
  const bq = ['roles/bigquery.admin', 'roles/bigquery.dataEditor', 'roles/bigquery.dataOwner',
    'roles/bigquery.dataViewer', 'roles/bigquery.metadataViewer', 'roles/bigquery.jobUser',
    'roles/bigquery.user', 'roles/owner', 'roles/editor', 'roles/viewer'];
  const storage = ['roles/storage.admin', 'roles/storage.legacyBucketOwner',
    'roles/storage.legacyBucketReader', 'roles/storage.legacyBucketWriter',
    'roles/storage.legacyObjectOwner', 'roles/storage.legacyObjectReader',
    'roles/storage.objectAdmin', 'roles/storage.objectCreator', 'roles/storage.objectViewer'];
  const crm = bq.concat(storage, ['roles/apigateway.admin', 'roles/apigateway.viewer',
    'roles/iam.securityAdmin', 'roles/browser']);
  return {dataset: bq, table: bq, bucket: storage, project: crm, organization: crm};
}

// ------------------------------------------------------------------ helpers

// Table data (insertAll, tabledata.list, schemas) lives in bigquery_data.js.
let bqData = null;
// Cloud Logging entries.list and IAM roles.get live in cloud_logging.js.
let logging = null;

const b64url = (b) => Buffer.from(b).toString('base64url');
let etagCounter = 0;
const newEtag = () => Buffer.from('etag-' + (++etagCounter)).toString('base64');
const newPolicy = () => ({version: 1, etag: newEtag(), bindings: []});

function send(res, status, body, headers) {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, Object.assign({'Content-Type': 'application/json; charset=UTF-8',
    'Content-Length': Buffer.byteLength(text)}, headers || {}));
  res.end(text);
}

// Google's JSON error body (cloud.google.com/apis/design/errors).
function gerr(res, code, status, message, reason) {
  send(res, code, {error: {code, message, status,
    errors: [{message, domain: 'global', reason: reason || status.toLowerCase()}]}});
}

function page(items, query, key) {
  const size = Math.min(Number(query.get('maxResults') || query.get('pageSize') ||
    state.config.maxPageSize), state.config.maxPageSize);
  const start = Number(query.get('pageToken') || 0);
  const out = {[key]: items.slice(start, start + size)};
  if (start + size < items.length) out.nextPageToken = String(start + size);
  return out;
}

// ------------------------------------------------------------------ principals
// Google IAM compares user, group, serviceAccount and domain principals
// case-insensitively and answers them in the casing it first stored
// (GoogleCloudPlatform/security-response-automation#191,
// terraform-provider-google#3880): "user:Jane.Doe@x.com" written where
// "jane.doe@x.com" is known is stored and read back as "user:jane.doe@x.com".

const PRINCIPAL_TYPES = ['user', 'group', 'serviceAccount', 'domain'];

function canonicalId(id) {
  const k = String(id).toLowerCase();
  if (!(k in state.principals)) state.principals[k] = String(id);
  return state.principals[k];
}

function canonicalMember(m) {
  const colon = String(m).indexOf(':');
  if (colon < 0 || !PRINCIPAL_TYPES.includes(m.slice(0, colon))) return m;
  return m.slice(0, colon) + ':' + canonicalId(m.slice(colon + 1));
}

function kept(member) {
  const k = String(member).toLowerCase();
  return (state.config.keepMembers || []).some((x) => String(x).toLowerCase() === k);
}

// The bindings of a setIamPolicy as Google stores them: members in their
// canonical casing, one per binding, a kept member that the write dropped
// put back, empty bindings dropped.
function storeBindings(old, bindings) {
  const out = (bindings || []).map((b) => {
    const members = [];
    for (const m of b.members || []) {
      const c = canonicalMember(m);
      if (!members.includes(c)) members.push(c);
    }
    return Object.assign({}, b, {members});
  });
  for (const ob of (old && old.bindings) || []) {
    for (const m of ob.members || []) {
      if (!kept(m)) continue;
      let nb = out.find((b) => b.role === ob.role && JSON.stringify(b.condition) === JSON.stringify(ob.condition));
      if (!nb) { nb = Object.assign({}, ob, {members: []}); out.push(nb); }
      if (!nb.members.includes(m)) nb.members.push(m);
    }
  }
  return out.filter((b) => b.members.length);
}

// A dataset's access entries as BigQuery stores them: userByEmail and
// groupByEmail in their canonical casing, duplicates merged, kept entries
// put back.
function storeAccess(old, access) {
  const out = [];
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const add = (e) => { if (!out.some((x) => same(x, e))) out.push(e); };
  for (const e of access || []) {
    const c = Object.assign({}, e);
    if (c.userByEmail) c.userByEmail = canonicalId(c.userByEmail);
    if (c.groupByEmail) c.groupByEmail = canonicalId(c.groupByEmail);
    add(c);
  }
  for (const e of old || []) {
    const member = e.userByEmail ? 'user:' + e.userByEmail : e.groupByEmail ? 'group:' + e.groupByEmail : null;
    if (member && kept(member)) add(Object.assign({}, e));
  }
  return out;
}

function samePolicyEtag(current, given) {
  return given === undefined || given === null || given === '' || given === current.etag;
}

// ------------------------------------------------------------------ token

function verifyAssertion(assertion) {
  const parts = String(assertion || '').split('.');
  if (parts.length !== 3) return 'malformed assertion';
  let header, claims;
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url'));
    claims = JSON.parse(Buffer.from(parts[1], 'base64url'));
  } catch (e) { return 'malformed assertion'; }
  if (header.alg !== 'RS256') return 'alg must be RS256';
  const key = state.keys[claims.iss];
  if (!key) return 'Invalid JWT Signature.';
  const ok = crypto.verify('RSA-SHA256', Buffer.from(parts[0] + '.' + parts[1]), key.publicKey,
    Buffer.from(parts[2], 'base64url'));
  if (!ok) return 'Invalid JWT Signature.';
  const now = Math.floor(Date.now() / 1000);
  if (!(claims.exp > now && claims.iat <= now + 300 && claims.exp - claims.iat <= 3600)) {
    return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.';
  }
  if (!claims.scope) return 'Invalid OAuth scope or ID token audience provided.';
  return {email: claims.iss};
}

function token(req, res, body) {
  state.stats.tokenRequests++;
  const form = new URLSearchParams(body);
  if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
    return send(res, 400, {error: 'unsupported_grant_type', error_description: 'Invalid grant_type'});
  }
  const v = verifyAssertion(form.get('assertion'));
  if (typeof v === 'string') return send(res, 400, {error: 'invalid_grant', error_description: v});
  const t = 'ya29.fake-' + crypto.randomBytes(18).toString('hex');
  state.tokens[t] = {email: v.email, expires: Date.now() + state.config.tokenLifetime * 1000};
  send(res, 200, {access_token: t, expires_in: state.config.tokenLifetime, token_type: 'Bearer'});
}

function authorized(req) {
  if (!state.config.requireAuth) return true;
  const m = /^Bearer (.+)$/.exec(req.headers.authorization || '');
  const t = m && state.tokens[m[1]];
  return Boolean(t && t.expires > Date.now());
}

// ------------------------------------------------------------------ bigquery

function bqProject(p) { return state.bq[p]; }

function datasetView(p, d) {
  const out = {kind: 'bigquery#dataset', id: p + ':' + d.id, etag: d.etag,
    datasetReference: {projectId: p, datasetId: d.id}, location: d.location,
    access: d.access.map(legacyRole), creationTime: String(d.created),
    lastModifiedTime: String(d.modified)};
  if (Object.keys(d.labels).length) out.labels = d.labels;
  return out;
}

// BigQuery returns the basic dataset roles in their legacy form
// (REST reference, Dataset.access[].role).
function legacyRole(entry) {
  const map = {'roles/bigquery.dataOwner': 'OWNER', 'roles/bigquery.dataEditor': 'WRITER',
    'roles/bigquery.dataViewer': 'READER'};
  return Object.assign({}, entry, entry.role && map[entry.role] ? {role: map[entry.role]} : {});
}

function tableView(p, d, t) {
  const out = {kind: 'bigquery#table', id: p + ':' + d.id + '.' + t.id, etag: t.etag,
    tableReference: {projectId: p, datasetId: d.id, tableId: t.id}, type: 'TABLE'};
  if (Object.keys(t.labels).length) out.labels = t.labels;
  return out;
}

function bigquery(req, res, path, query, body) {
  if (bqData.route(req, res, path, query, body)) return;
  let m = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets$/.exec(path);
  if (m && req.method === 'GET') {
    const p = bqProject(m[1]);
    if (!p) return gerr(res, 404, 'NOT_FOUND', 'Not found: Project ' + m[1], 'notFound');
    const list = Object.values(p.datasets).sort((a, b) => a.id < b.id ? -1 : 1).map((d) => {
      const v = datasetView(m[1], d);
      return {kind: 'bigquery#dataset', id: v.id, datasetReference: v.datasetReference,
        labels: v.labels, location: v.location};
    });
    return send(res, 200, Object.assign({kind: 'bigquery#datasetList', etag: newEtag()},
      page(list, query, 'datasets')));
  }
  m = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)$/.exec(path);
  if (m) {
    const p = bqProject(m[1]);
    const d = p && p.datasets[m[2]];
    if (!d) return gerr(res, 404, 'NOT_FOUND', 'Not found: Dataset ' + m[1] + ':' + m[2], 'notFound');
    if (req.method === 'GET') return send(res, 200, datasetView(m[1], d));
    if (req.method === 'PATCH' || req.method === 'PUT') {
      const ifMatch = req.headers['if-match'];
      if (ifMatch && ifMatch !== d.etag) {
        return gerr(res, 412, 'FAILED_PRECONDITION', 'Precondition check failed.', 'conditionNotMet');
      }
      const patch = JSON.parse(body || '{}');
      if (patch.access) d.access = storeAccess(d.access, patch.access);
      if (patch.labels) d.labels = patch.labels;
      d.etag = newEtag();
      d.modified = Date.now();
      return send(res, 200, datasetView(m[1], d));
    }
  }
  m = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)\/tables$/.exec(path);
  if (m && req.method === 'GET') {
    const p = bqProject(m[1]);
    const d = p && p.datasets[m[2]];
    if (!d) return gerr(res, 404, 'NOT_FOUND', 'Not found: Dataset ' + m[1] + ':' + m[2], 'notFound');
    const list = Object.values(d.tables).sort((a, b) => a.id < b.id ? -1 : 1)
      .map((t) => tableView(m[1], d, t));
    return send(res, 200, Object.assign({kind: 'bigquery#tableList', etag: newEtag(),
      totalItems: list.length}, page(list, query, 'tables')));
  }
  m = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)\/tables\/([^/:]+)(:getIamPolicy|:setIamPolicy|:testIamPermissions)?$/.exec(path);
  if (m) {
    const p = bqProject(m[1]);
    const d = p && p.datasets[m[2]];
    const t = d && d.tables[m[3]];
    if (!t) return gerr(res, 404, 'NOT_FOUND', 'Not found: Table ' + m[1] + ':' + m[2] + '.' + m[3], 'notFound');
    if (!m[4] && req.method === 'GET') return send(res, 200, tableView(m[1], d, t));
    if (req.method === 'POST') return iamMethod(res, m[4].slice(1), t, body, 409);
  }
  return gerr(res, 404, 'NOT_FOUND', 'Not found: ' + req.method + ' ' + path, 'notFound');
}

// getIamPolicy / setIamPolicy / testIamPermissions on a holder of `.policy`.
// A stale etag is refused with `conflictStatus` (409 ABORTED for the IAM
// methods of BigQuery and Resource Manager, 412 for Cloud Storage).
function iamMethod(res, method, holder, body, conflictStatus) {
  if (method === 'getIamPolicy') return send(res, 200, holder.policy);
  if (method === 'testIamPermissions') {
    const req = JSON.parse(body || '{}');
    return send(res, 200, {permissions: req.permissions || []});
  }
  const req = JSON.parse(body || '{}');
  const policy = req.policy || {};
  if (!samePolicyEtag(holder.policy, policy.etag)) return conflict(res, conflictStatus);
  holder.policy = {version: policy.version || 1, etag: newEtag(),
    bindings: storeBindings(holder.policy, policy.bindings)};
  return send(res, 200, holder.policy);
}

function conflict(res, status) {
  if (status === 412) {
    return gerr(res, 412, 'FAILED_PRECONDITION', 'Precondition Failed', 'conditionNotMet');
  }
  return gerr(res, 409, 'ABORTED', 'There were concurrent policy changes. Please retry the ' +
    'whole read-modify-write with exponential backoff.', 'aborted');
}

// ------------------------------------------------------------------ storage

function bucketView(name, b) {
  const out = {kind: 'storage#bucket', id: name, name, selfLink: '/storage/v1/b/' + name,
    projectNumber: '123456', location: b.location, storageClass: 'STANDARD',
    etag: 'CAE=', timeCreated: new Date(b.created).toISOString()};
  if (Object.keys(b.labels).length) out.labels = b.labels;
  return out;
}

function storage(req, res, path, query, body) {
  if (path === '/storage/v1/b' && req.method === 'GET') {
    const project = query.get('project');
    if (!project) return gerr(res, 400, 'INVALID_ARGUMENT', 'Required parameter: project', 'required');
    if (!state.crm.projects[project] && !state.bq[project]) {
      return gerr(res, 404, 'NOT_FOUND', 'The requested project was not found.', 'notFound');
    }
    const list = Object.keys(state.buckets).sort().filter((n) => state.buckets[n].project === project)
      .map((n) => bucketView(n, state.buckets[n]));
    return send(res, 200, Object.assign({kind: 'storage#buckets'}, page(list, query, 'items')));
  }
  const o = /^\/storage\/v1\/b\/([^/]+)\/o(?:\/(.+))?$/.exec(path);
  if (o) {
    const b = state.buckets[o[1]];
    if (!b) return gerr(res, 404, 'NOT_FOUND', 'The specified bucket does not exist.', 'notFound');
    return objects(req, res, o[1], b, o[2], query);
  }
  const m = /^\/storage\/v1\/b\/([^/]+)(\/iam)?$/.exec(path);
  if (m) {
    const b = state.buckets[m[1]];
    if (!b) return gerr(res, 404, 'NOT_FOUND', 'The specified bucket does not exist.', 'notFound');
    if (!m[2] && req.method === 'GET') return send(res, 200, bucketView(m[1], b));
    if (m[2] && req.method === 'GET') {
      return send(res, 200, Object.assign({kind: 'storage#policy',
        resourceId: 'projects/_/buckets/' + m[1]}, b.policy));
    }
    if (m[2] && req.method === 'PUT') {
      const policy = JSON.parse(body || '{}');
      if (!samePolicyEtag(b.policy, policy.etag)) return conflict(res, 412);
      b.policy = {version: policy.version || 1, etag: newEtag(),
        bindings: storeBindings(b.policy, policy.bindings)};
      return send(res, 200, Object.assign({kind: 'storage#policy',
        resourceId: 'projects/_/buckets/' + m[1]}, b.policy));
    }
  }
  return gerr(res, 404, 'NOT_FOUND', 'Not Found', 'notFound');
}

// ------------------------------------------------------------------ storage objects
// Uploads (media and multipart), object metadata, downloads (alt=media) and
// listings, for the GCS dead-letter writer and @google-cloud/storage.

// CRC32C (Castagnoli), which Cloud Storage reports in crc32c / x-goog-hash.
const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32c(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC32C_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return out.toString('base64');
}

function objectView(bucket, o) {
  return {kind: 'storage#object', id: bucket + '/' + o.name + '/' + o.generation,
    selfLink: '/storage/v1/b/' + bucket + '/o/' + encodeURIComponent(o.name), name: o.name, bucket,
    generation: String(o.generation), metageneration: '1', contentType: o.contentType,
    size: String(o.data.length), md5Hash: crypto.createHash('md5').update(o.data).digest('base64'),
    crc32c: crc32c(o.data), timeCreated: o.created, updated: o.created};
}

// A multipart/related upload body: the JSON metadata part and the media part.
function multipart(req, raw) {
  const m = /boundary="?([^";]+)"?/.exec(req.headers['content-type'] || '');
  if (!m) return null;
  const parts = raw.toString('latin1').split('--' + m[1]).slice(1, -1).map((p) => {
    const at = p.indexOf('\r\n\r\n');
    return {head: p.slice(0, at).toLowerCase(), body: Buffer.from(p.slice(at + 4, -2), 'latin1')};
  });
  if (parts.length !== 2) return null;
  return {meta: JSON.parse(parts[0].body.toString('utf8')), data: parts[1].body,
    contentType: (/content-type:\s*([^\r\n]+)/.exec(parts[1].head) || [])[1]};
}

function upload(req, res, path, query, raw) {
  const m = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(path);
  if (!m || req.method !== 'POST') return gerr(res, 404, 'NOT_FOUND', 'Not Found', 'notFound');
  const b = state.buckets[m[1]];
  if (!b) return gerr(res, 404, 'NOT_FOUND', 'The specified bucket does not exist.', 'notFound');
  let name = query.get('name'), data = raw, contentType = req.headers['content-type'];
  const type = query.get('uploadType');
  if (type === 'multipart') {
    const mp = multipart(req, raw);
    if (!mp) return gerr(res, 400, 'INVALID_ARGUMENT', 'Bad multipart body', 'invalid');
    name = mp.meta.name || name;
    data = mp.data;
    contentType = mp.meta.contentType || mp.contentType;
  } else if (type !== 'media') {
    return gerr(res, 400, 'INVALID_ARGUMENT', 'Unsupported uploadType: ' + type, 'invalid');
  }
  if (!name) return gerr(res, 400, 'INVALID_ARGUMENT', 'Required parameter: name', 'required');
  b.objects = b.objects || {};
  const gen = (b.objects[name] ? b.objects[name].generation : Date.now() * 1000) + 1;
  if (query.get('ifGenerationMatch') === '0' && b.objects[name]) {
    return gerr(res, 412, 'FAILED_PRECONDITION', 'At least one of the pre-conditions you specified did not hold.', 'conditionNotMet');
  }
  b.objects[name] = {name, data, generation: gen, contentType: contentType || 'application/octet-stream',
    created: new Date().toISOString()};
  return send(res, 200, objectView(m[1], b.objects[name]));
}

function objects(req, res, bucket, b, name, query) {
  const all = b.objects || {};
  if (name === undefined) {
    const prefix = query.get('prefix') || '';
    const list = Object.keys(all).sort().filter((n) => n.startsWith(prefix))
      .map((n) => objectView(bucket, all[n]));
    return send(res, 200, Object.assign({kind: 'storage#objects'}, page(list, query, 'items')));
  }
  const o = all[name];
  if (!o) return gerr(res, 404, 'NOT_FOUND', 'No such object: ' + bucket + '/' + name, 'notFound');
  if (req.method === 'DELETE') { delete all[name]; res.writeHead(204); return res.end(); }
  if (query.get('alt') !== 'media') return send(res, 200, objectView(bucket, o));
  const v = objectView(bucket, o);
  res.writeHead(200, {'Content-Type': o.contentType, 'Content-Length': o.data.length,
    'x-goog-hash': 'crc32c=' + v.crc32c + ',md5=' + v.md5Hash,
    'x-goog-generation': String(o.generation), 'x-goog-stored-content-length': String(o.data.length)});
  return res.end(o.data);
}

// ------------------------------------------------------------------ resource manager, iam

function resourceManager(req, res, path, query, body) {
  let m = /^\/v1\/(projects|organizations)\/([^/:]+)(:getIamPolicy|:setIamPolicy|:testIamPermissions)?$/.exec(path);
  if (m) {
    const holder = state.crm[m[1]][m[2]];
    if (!holder) {
      return gerr(res, 403, 'PERMISSION_DENIED', 'The caller does not have permission', 'forbidden');
    }
    if (!m[3] && req.method === 'GET') {
      return send(res, 200, m[1] === 'projects'
        ? {projectNumber: '123456', projectId: m[2], lifecycleState: 'ACTIVE', name: m[2]}
        : {name: 'organizations/' + m[2], displayName: m[2], lifecycleState: 'ACTIVE'});
    }
    if (m[3] && req.method === 'POST') return iamMethod(res, m[3].slice(1), holder, body, 409);
  }
  if (path === '/v1/roles:queryGrantableRoles' && req.method === 'POST') {
    const r = JSON.parse(body || '{}');
    const name = String(r.fullResourceName || '');
    let kind = null;
    m = /^\/\/bigquery\.googleapis\.com\/projects\/([^/]+)\/datasets\/([^/]+)(\/tables\/([^/]+))?$/.exec(name);
    if (m) {
      const d = state.bq[m[1]] && state.bq[m[1]].datasets[m[2]];
      if (d && (!m[3] || d.tables[m[4]])) kind = m[3] ? 'table' : 'dataset';
    }
    m = /^\/\/cloudresourcemanager\.googleapis\.com\/(projects|organizations)\/([^/]+)$/.exec(name);
    if (m && state.crm[m[1]][m[2]]) kind = m[1] === 'projects' ? 'project' : 'organization';
    m = /^\/\/storage\.googleapis\.com\/projects\/_\/buckets\/([^/]+)$/.exec(name);
    if (m && state.buckets[m[1]]) kind = 'bucket';
    if (!kind) return gerr(res, 400, 'INVALID_ARGUMENT', 'Invalid resource name.', 'badRequest');
    const roles = state.grantable[kind].map((n) => ({name: n, title: n}));
    const q = new URLSearchParams();
    if (r.pageSize) q.set('pageSize', r.pageSize);
    if (r.pageToken) q.set('pageToken', r.pageToken);
    return send(res, 200, page(roles, q, 'roles'));
  }
  return gerr(res, 404, 'NOT_FOUND', 'Not Found', 'notFound');
}

// ------------------------------------------------------------------ control

function seed(s) {
  const now = Date.now();
  for (const [p, proj] of Object.entries(s.bigquery || {})) {
    state.bq[p] = state.bq[p] || {datasets: {}};
    for (const [id, d] of Object.entries(proj.datasets || {})) {
      const ds = {id, labels: d.labels || {}, location: d.location || 'US', etag: newEtag(),
        access: storeAccess([], d.access), created: now, modified: now,
        tables: {}};
      for (const [tid, t] of Object.entries(d.tables || {})) {
        ds.tables[tid] = {id: tid, labels: (t && t.labels) || {}, etag: newEtag(), policy: newPolicy(),
          schema: (t && t.schema) || [], rows: []};
      }
      state.bq[p].datasets[id] = ds;
    }
  }
  for (const [name, b] of Object.entries(s.buckets || {})) {
    state.buckets[name] = {project: b.project, labels: b.labels || {}, location: b.location || 'US',
      created: now, policy: newPolicy()};
  }
  for (const id of s.principals || []) canonicalId(id);
  for (const id of s.projects || []) state.crm.projects[id] = {policy: newPolicy()};
  for (const id of s.organizations || []) state.crm.organizations[id] = {policy: newPolicy()};
  for (const [kind, roles] of Object.entries(s.grantable || {})) {
    state.grantable[kind] = state.grantable[kind].concat(roles);
  }
}

function control(req, res, path, query, body) {
  const args = body ? JSON.parse(body) : {};
  if (path.startsWith('/_fake/bq/') && bqData.control(req, res, path, args)) return;
  if (logging.control(req, res, path, args)) return;
  if (path === '/_fake/reset') { reset(); return send(res, 200, {}); }
  if (path === '/_fake/seed') { seed(args); return send(res, 200, {}); }
  if (path === '/_fake/config') { Object.assign(state.config, args); return send(res, 200, state.config); }
  if (path === '/_fake/state') {
    return send(res, 200, {bigquery: state.bq, buckets: state.buckets, crm: state.crm});
  }
  if (path === '/_fake/stats') return send(res, 200, state.stats);
  const objs = /^\/_fake\/objects\/([^/]+)$/.exec(path);
  if (objs) {
    // {<object name>: <content as UTF-8 text>} of one bucket.
    const all = (state.buckets[objs[1]] || {}).objects || {};
    const out = {};
    for (const [n, o] of Object.entries(all)) out[n] = o.data.toString('utf8');
    return send(res, 200, out);
  }
  if (path === '/_fake/faults' && req.method === 'DELETE') { state.faults = []; return send(res, 200, {}); }
  if (path === '/_fake/faults') {
    // {method?, path: substring, status?, count?: n (default 1, -1 forever), delay_ms?}
    state.faults.push(Object.assign({count: 1}, args));
    return send(res, 200, {});
  }
  if (path === '/_fake/service_accounts') {
    // A fresh key the token endpoint accepts: {client_email, project_id}.
    const {privateKey, publicKey} = crypto.generateKeyPairSync('rsa', {modulusLength: 2048});
    const kid = crypto.randomBytes(20).toString('hex');
    const email = args.client_email || 'sluice@' + (args.project_id || 'p') + '.iam.gserviceaccount.com';
    state.keys[email] = {publicKey, kid};
    const host = req.headers.host;
    return send(res, 200, {type: 'service_account', project_id: args.project_id || 'p',
      private_key_id: kid, private_key: privateKey.export({type: 'pkcs8', format: 'pem'}),
      client_email: email, client_id: '1', token_uri: 'http://' + host + '/token',
      auth_uri: 'http://' + host + '/auth'});
  }
  return send(res, 404, {error: 'unknown control path'});
}

// ------------------------------------------------------------------ server

function takeFault(req, path) {
  for (const f of state.faults) {
    if (f.count === 0) continue;
    if (f.method && f.method !== req.method) continue;
    if (f.path && !path.includes(f.path)) continue;
    if (f.count > 0) f.count--;
    return f;
  }
  return null;
}

function route(req, res, path, query, body, raw) {
  if (path.startsWith('/_fake/')) return control(req, res, path, query, body);
  const key = req.method + ' ' + path;
  state.stats.requests[key] = (state.stats.requests[key] || 0) + 1;
  const fault = takeFault(req, path);
  const go = () => {
    if (fault && fault.status) {
      const names = {400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED',
        404: 'NOT_FOUND', 409: 'ABORTED', 412: 'FAILED_PRECONDITION', 429: 'RESOURCE_EXHAUSTED',
        500: 'INTERNAL', 502: 'UNAVAILABLE', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED'};
      return gerr(res, fault.status, names[fault.status] || 'UNKNOWN', 'injected fault');
    }
    if (path === '/token' && req.method === 'POST') return token(req, res, body);
    if (!authorized(req)) {
      return gerr(res, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.',
        'authError');
    }
    if (logging.route(req, res, path, body)) return;
    if (path.startsWith('/bigquery/v2/')) return bigquery(req, res, path, query, body);
    if (path.startsWith('/storage/v1/')) return storage(req, res, path, query, body);
    if (path.startsWith('/upload/storage/v1/')) return upload(req, res, path, query, raw);
    if (path.startsWith('/v1/')) return resourceManager(req, res, path, query, body);
    return gerr(res, 404, 'NOT_FOUND', 'Not Found', 'notFound');
  };
  if (fault && fault.delay_ms) setTimeout(go, fault.delay_ms); else go();
}

function main() {
  bqData = bigqueryData({state: () => state, send, gerr, newEtag, newPolicy,
    datasetView: (res, p, d) => send(res, 200, datasetView(p, d))});
  logging = cloudLogging({state: () => state, send, gerr});
  reset();
  const i = process.argv.indexOf('--port');
  const port = i > 0 ? Number(process.argv[i + 1]) : 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url, 'http://fake');
      let path;
      try { path = decodeURIComponent(url.pathname); } catch (e) { path = url.pathname; }
      try {
        const raw = Buffer.concat(chunks);
        route(req, res, path, url.searchParams, raw.toString('utf8'), raw);
      } catch (e) {
        gerr(res, 400, 'INVALID_ARGUMENT', 'bad request: ' + e.message, 'badRequest');
      }
    });
  });
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write('gcp_fake listening on ' + server.address().port + '\n');
  });
  process.on('SIGTERM', () => process.exit(0));
}

if (require.main === module) main();
module.exports = {main};
