// Drives integration/gcp_fake's Cloud Logging entries.list
// (cloud_logging.js) with Google's official Node.js client,
// @google-cloud/logging (pinned in package.json), over its REST transport
// (google-gax fallback 'rest': POST /v2/entries:list with a JSON body),
// pointed at the fake: the filter parts Guardian's BigQuery activity import
// sends (principalEmail, resourceName ':' prefix, methodName, timestamp
// bounds), ordering, the client's own paging over nextPageToken, and an
// injected failure. Run by official_clients_test.sh with NODE_PATH set.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const {Logging} = require('@google-cloud/logging');
const {OAuth2Client} = require('google-auth-library');
const {startFake, serviceAccountToken} = require('./test_support');

let fake, base, port;

async function call(method, p, body) {
  const res = await fetch(base + p, {method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: {'Content-Type': 'application/json'}});
  return {status: res.status, json: await res.json().catch(() => null)};
}

// An OAuth2 client holding a token from the fake's service-account flow
// (test_support.js serviceAccountToken).
async function authClient() {
  const key = (await call('POST', '/_fake/service_accounts', {project_id: 'proj'})).json;
  const c = new OAuth2Client();
  c.setCredentials({access_token: await serviceAccountToken(key),
    expiry_date: Date.now() + 3600e3});
  return c;
}

// The REST transport decodes protoPayload (an Any) with the protobuf types
// the client holds, and @google-cloud/logging ships no
// google.cloud.audit.AuditLog: reading Cloud Audit Logs over REST, an
// application adds that type, as here (the fields Guardian reads, from
// googleapis google/cloud/audit/audit_log.proto). The fake's JSON is what
// Cloud Logging answers; the client decodes it either way.
const AUDIT_LOG = {google: {nested: {cloud: {nested: {audit: {nested: {
  AuditLog: {fields: {
    serviceName: {type: 'string', id: 7}, methodName: {type: 'string', id: 8},
    resourceName: {type: 'string', id: 11},
    authenticationInfo: {type: 'AuthenticationInfo', id: 3},
    authorizationInfo: {rule: 'repeated', type: 'AuthorizationInfo', id: 9}}},
  AuthenticationInfo: {fields: {principalEmail: {type: 'string', id: 1},
    serviceAccountKeyName: {type: 'string', id: 5}}},
  AuthorizationInfo: {fields: {resource: {type: 'string', id: 1},
    permission: {type: 'string', id: 2}, granted: {type: 'bool', id: 3}}},
}}}}}}};

async function client() {
  const logging = new Logging({projectId: 'proj', apiEndpoint: '127.0.0.1', port,
    protocol: 'http', fallback: 'rest', authClient: await authClient()});
  logging.loggingService._protos.addJSON(AUDIT_LOG);
  return logging;
}

function entry(id, ts, who, resource, method) {
  return {insertId: id, timestamp: ts,
    resource: {type: 'bigquery_dataset', labels: {project_id: 'proj'}},
    protoPayload: {'@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
      serviceName: 'bigquery.googleapis.com', methodName: method, resourceName: resource,
      authenticationInfo: {principalEmail: who},
      authorizationInfo: [{permission: 'bigquery.tables.getData', granted: true}]}};
}

test.before(async () => {
  ({process: fake, port, base} = await startFake(path.join(__dirname, '..', 'gcp_fake.js')));
});

test.after(() => fake.kill());

test.beforeEach(async () => {
  await call('POST', '/_fake/reset');
  const list = 'google.cloud.bigquery.v2.TableDataService.List';
  await call('POST', '/_fake/logging/entries', {project: 'proj', entries: [
    entry('e1', '2026-01-01T00:00:00Z', 'a@x.com', 'projects/proj/datasets/sales', list),
    entry('e2', '2026-01-02T00:00:00Z', 'b@x.com', 'projects/proj/datasets/sales/tables/orders', list),
    entry('e3', '2026-01-03T00:00:00Z', 'a@x.com', 'projects/proj/datasets/web', list),
    entry('e4', '2026-01-04T00:00:00Z', 'a@x.com', 'projects/proj/datasets/sales/tables/orders',
      'google.cloud.bigquery.v2.JobService.InsertJob'),
  ]});
  await call('POST', '/_fake/logging/entries', {project: 'other', entries: [
    entry('o1', '2026-01-01T00:00:00Z', 'a@x.com', 'projects/other/datasets/sales', list),
  ]});
  await call('POST', '/_fake/config', {maxPageSize: 1});  // the client's paging is exercised
});

const ids = (entries) => entries.map((e) => e.metadata.insertId);

test('entries.list pages through every entry of the project, oldest first', async () => {
  const logging = await client();
  // The client adds `timestamp >= <24 h ago>` to a filter without a
  // timestamp; these entries are older.
  const since = 'timestamp >= "2026-01-01T00:00:00Z"';
  const [entries] = await logging.getEntries({resourceNames: ['projects/proj'], filter: since,
    autoPaginate: true, orderBy: 'timestamp asc'});
  assert.deepStrictEqual(ids(entries), ['e1', 'e2', 'e3', 'e4']);
  const p = entries[0].metadata.protoPayload;
  assert.strictEqual(entries[0].metadata.resource.type, 'bigquery_dataset');
  assert.strictEqual(p.type_url, 'type.googleapis.com/google.cloud.audit.AuditLog');
  const [desc] = await logging.getEntries({resourceNames: ['projects/proj'], autoPaginate: true,
    filter: since, orderBy: 'timestamp desc'});
  assert.deepStrictEqual(ids(desc), ['e4', 'e3', 'e2', 'e1']);
});

test("Guardian's filter: principalEmail, resourceName ':' prefix, methodName, timestamps", async () => {
  const logging = await client();
  const filter = [
    'protoPayload.serviceName="bigquery.googleapis.com"',
    'resource.type="bigquery_dataset"',
    'protoPayload.authenticationInfo.principalEmail=("a@x.com" OR "c@x.com")',
    'protoPayload.resourceName:("projects/proj/datasets/sales")',
    'protoPayload.methodName=("google.cloud.bigquery.v2.TableDataService.List" OR ' +
      '"google.cloud.bigquery.v2.JobService.InsertJob")',
    'timestamp>="2026-01-01T00:00:00Z"',
    'timestamp<="2026-01-04T00:00:00Z"',
  ].join(' AND ');
  const [entries] = await logging.getEntries({resourceNames: ['projects/proj'], filter,
    autoPaginate: true, orderBy: 'timestamp asc'});
  assert.deepStrictEqual(ids(entries), ['e1', 'e4']);
  const [early] = await logging.getEntries({resourceNames: ['projects/proj'], autoPaginate: true,
    filter: 'timestamp<"2026-01-02T00:00:00Z"'});
  assert.deepStrictEqual(ids(early), ['e1']);
});

test('a filter the fake cannot parse and an injected failure are errors', async () => {
  const logging = await client();
  await assert.rejects(logging.getEntries({resourceNames: ['projects/proj'], filter: 'a = (',
    autoPaginate: true}), (e) => e.code === 3 || e.code === 400, 'INVALID_ARGUMENT');
  await call('POST', '/_fake/faults', {path: '/v2/entries:list', status: 403});
  await assert.rejects(logging.getEntries({resourceNames: ['projects/proj'], autoPaginate: true,
    filter: 'timestamp >= "2026-01-01T00:00:00Z"'}),
    (e) => e.code === 7 || e.code === 403, 'PERMISSION_DENIED');
});
