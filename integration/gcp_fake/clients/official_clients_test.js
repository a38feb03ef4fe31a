// Drives integration/gcp_fake with Google's official Node.js clients
// (@google-cloud/bigquery, @google-cloud/storage, pinned in package.json),
// endpoints pointed at the fake, to show that the fake answers as the real
// APIs do: listing, metadata, dataset access entries with If-Match, table
// and bucket IAM read-modify-write with etags. Run by official_clients_test.sh
// with NODE_PATH set to the installed node_modules.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const {BigQuery} = require('@google-cloud/bigquery');
const {Storage} = require('@google-cloud/storage');
const {OAuth2Client} = require('google-auth-library');
const {startFake, serviceAccountToken} = require('./test_support');

let fake, base;

async function call(method, p, body) {
  const res = await fetch(base + p, {method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: {'Content-Type': 'application/json'}});
  return {status: res.status, json: await res.json().catch(() => null)};
}

const accessToken = serviceAccountToken;

async function authClient() {
  const key = (await call('POST', '/_fake/service_accounts', {project_id: 'proj'})).json;
  const c = new OAuth2Client();
  c.setCredentials({access_token: await accessToken(key), expiry_date: Date.now() + 3600e3});
  return c;
}

test.before(async () => {
  ({process: fake, base} = await startFake(path.join(__dirname, '..', 'gcp_fake.js')));
});

test.after(() => fake.kill());

test.beforeEach(async () => {
  await call('POST', '/_fake/reset');
  await call('POST', '/_fake/seed', {
    bigquery: {proj: {datasets: {
      sales: {labels: {team: 'data'}, access: [{role: 'OWNER', specialGroup: 'projectOwners'}],
        tables: {orders: {labels: {pii: 'yes'}}, refunds: {}}},
      web: {}}}},
    buckets: {'proj-logs': {project: 'proj', labels: {env: 'prod'}}, 'proj-raw': {project: 'proj'}},
    projects: ['proj'],
  });
  // Small pages, so the clients' own paging is exercised.
  await call('POST', '/_fake/config', {maxPageSize: 1});
});

test('BigQuery client lists datasets and tables across pages', async () => {
  const bq = new BigQuery({projectId: 'proj', apiEndpoint: base, authClient: await authClient()});
  const [datasets] = await bq.getDatasets({autoPaginate: true});
  assert.deepStrictEqual(datasets.map((d) => d.id), ['sales', 'web']);
  assert.deepStrictEqual(datasets[0].metadata.labels, {team: 'data'});
  const [tables] = await bq.dataset('sales').getTables({autoPaginate: true});
  assert.deepStrictEqual(tables.map((t) => t.id), ['orders', 'refunds']);
  assert.deepStrictEqual(tables[0].metadata.labels, {pii: 'yes'});
});

test('BigQuery client updates dataset access entries with If-Match', async () => {
  const bq = new BigQuery({projectId: 'proj', apiEndpoint: base, authClient: await authClient()});
  const ds = bq.dataset('sales');
  const [md] = await ds.getMetadata();
  const access = md.access.concat([{role: 'roles/bigquery.dataViewer', userByEmail: 'a@example.com'}]);
  await ds.setMetadata({access, etag: md.etag});
  const [after] = await ds.getMetadata();
  assert.ok(after.access.some((e) => e.userByEmail === 'a@example.com' && e.role === 'READER'),
    'the basic role comes back in its legacy form');
  // A stale etag is refused (412), as BigQuery does.
  await assert.rejects(ds.setMetadata({access: [], etag: md.etag}), (e) => e.code === 412);
});

test('BigQuery client reads and sets table IAM policies with etags', async () => {
  const bq = new BigQuery({projectId: 'proj', apiEndpoint: base, authClient: await authClient()});
  const table = bq.dataset('sales').table('orders');
  const [policy] = await table.getIamPolicy();
  assert.ok(policy.etag);
  const bindings = [{role: 'roles/bigquery.dataViewer', members: ['user:a@example.com']}];
  const [set] = await table.setIamPolicy({bindings, etag: policy.etag});
  assert.deepStrictEqual(set.bindings, bindings);
  const [again] = await table.getIamPolicy();
  assert.deepStrictEqual(again.bindings, bindings);
  await assert.rejects(table.setIamPolicy({bindings: [], etag: policy.etag}),
    (e) => e.code === 409);
});

test('Storage client lists buckets and does bucket IAM read-modify-write', async () => {
  const storage = new Storage({projectId: 'proj', apiEndpoint: base,
    authClient: await authClient(), useAuthWithCustomEndpoint: true});
  const [buckets] = await storage.getBuckets({autoPaginate: true});
  assert.deepStrictEqual(buckets.map((b) => b.name), ['proj-logs', 'proj-raw']);
  assert.deepStrictEqual(buckets[0].metadata.labels, {env: 'prod'});
  const bucket = storage.bucket('proj-logs');
  const [policy] = await bucket.iam.getPolicy();
  policy.bindings.push({role: 'roles/storage.objectViewer', members: ['group:g@example.com']});
  await bucket.iam.setPolicy(policy);
  const [after] = await bucket.iam.getPolicy();
  assert.deepStrictEqual(after.bindings,
    [{role: 'roles/storage.objectViewer', members: ['group:g@example.com']}]);
  await assert.rejects(bucket.iam.setPolicy(policy), (e) => e.code === 412);
});

test('Storage client uploads, lists and downloads objects (media and multipart)', async () => {
  const storage = new Storage({projectId: 'proj', apiEndpoint: base,
    authClient: await authClient(), useAuthWithCustomEndpoint: true});
  const bucket = storage.bucket('proj-logs');
  const lines = '{"offset":1}\n{"offset":2,"value":"w7w="}\n';
  // Multipart upload with the client's own crc32c/md5 validation of the answer.
  await bucket.file('rides/2026-11-25/a').save(lines, {resumable: false,
    contentType: 'application/x-ndjson'});
  // A media upload, as the GCS dead-letter writer sends it.
  const token = await accessToken((await call('POST', '/_fake/service_accounts', {project_id: 'proj'})).json);
  const res = await fetch(base + '/upload/storage/v1/b/proj-logs/o?uploadType=media&name=' +
    encodeURIComponent('rides/2026-11-25/b'), {method: 'POST', body: 'x\n',
    headers: {'Content-Type': 'application/x-ndjson', Authorization: 'Bearer ' + token}});
  assert.strictEqual(res.status, 200);
  assert.strictEqual((await res.json()).size, '2');
  const [files] = await bucket.getFiles({prefix: 'rides/', autoPaginate: true});
  assert.deepStrictEqual(files.map((f) => f.name), ['rides/2026-11-25/a', 'rides/2026-11-25/b']);
  assert.strictEqual(files[0].metadata.contentType, 'application/x-ndjson');
  // Download checks the x-goog-hash crc32c the fake sends.
  const [data] = await bucket.file('rides/2026-11-25/a').download();
  assert.strictEqual(data.toString(), lines);
  await assert.rejects(bucket.file('rides/none').download(), (e) => e.code === 404);
  await assert.rejects(storage.bucket('nope').file('x').save('y', {resumable: false}),
    (e) => e.code === 404);
});

test('the fake refuses calls without a valid token, as Google does', async () => {
  const c = new OAuth2Client();
  c.setCredentials({access_token: 'not-a-token', expiry_date: Date.now() + 3600e3});
  const bq = new BigQuery({projectId: 'proj', apiEndpoint: base, authClient: c, autoRetry: false});
  await assert.rejects(bq.getDatasets(), (e) => e.code === 401);
});

test('BigQuery client creates a dataset and a partitioned, clustered table', async () => {
  const bq = new BigQuery({projectId: 'proj', apiEndpoint: base, authClient: await authClient()});
  const [ds] = await bq.createDataset('stream', {location: 'asia-southeast1', labels: {team: 'rides'}});
  assert.strictEqual(ds.metadata.location, 'asia-southeast1');
  await assert.rejects(bq.createDataset('stream'), (e) => e.code === 409);
  const schema = [{name: 'order', type: 'STRING'}, {name: 'amount', type: 'INTEGER'},
    {name: 'ts', type: 'TIMESTAMP'},
    {name: 'driver', type: 'RECORD', fields: [{name: 'city', type: 'STRING'}]}];
  const [table] = await ds.createTable('orders', {schema, labels: {pii: 'no'},
    timePartitioning: {type: 'DAY', field: 'ts'}, clustering: {fields: ['order']}});
  const [md] = await table.getMetadata();
  assert.deepStrictEqual(md.schema.fields.map((f) => f.name + ':' + f.type),
    ['order:STRING', 'amount:INTEGER', 'ts:TIMESTAMP', 'driver:RECORD']);
  assert.deepStrictEqual(md.timePartitioning, {type: 'DAY', field: 'ts'});
  assert.deepStrictEqual(md.clustering, {fields: ['order']});
  assert.deepStrictEqual(md.labels, {pii: 'no'});
  // Partitioning on a column that is not a time column is refused.
  await assert.rejects(ds.createTable('bad', {schema, timePartitioning: {type: 'DAY', field: 'order'}}),
    (e) => e.code === 400);
});

test('BigQuery client insert: an invalid row is a PartialFailureError naming that row', async () => {
  const bq = new BigQuery({projectId: 'proj', apiEndpoint: base, authClient: await authClient()});
  const [ds] = await bq.createDataset('stream2');
  const [table] = await ds.createTable('orders', {schema: [{name: 'order', type: 'STRING'},
    {name: 'amount', type: 'INTEGER'}, {name: 'ts', type: 'TIMESTAMP'},
    {name: 'tags', type: 'STRING', mode: 'REPEATED'}]});
  const good = {order: 'A', amount: 10, ts: '2024-05-01T10:00:00.000Z', tags: ['x', 'y']};
  const wrongType = {order: 'B', amount: 'ten'};
  const unknown = {order: 'C', colour: 'red'};
  // Without skipInvalidRows nothing is stored: the valid row is "stopped".
  await assert.rejects(table.insert([good, wrongType, unknown]), (e) => {
    assert.strictEqual(e.name, 'PartialFailureError');
    const byOrder = Object.fromEntries(e.errors.map((x) => [x.row.order, x.errors[0]]));
    assert.strictEqual(byOrder.A.reason, 'stopped');
    assert.strictEqual(byOrder.B.reason, 'invalid');
    assert.match(byOrder.B.message, /Cannot convert value to integer/);
    assert.strictEqual(byOrder.C.reason, 'invalid');
    assert.match(byOrder.C.message, /no such field: colour/);
    return true;
  });
  assert.strictEqual((await table.getRows())[0].length, 0);
  // With skipInvalidRows the valid rows are stored and only the bad one fails.
  await assert.rejects(table.insert([good, wrongType], {skipInvalidRows: true}), (e) => {
    assert.deepStrictEqual(e.errors.map((x) => x.row.order), ['B']);
    return true;
  });
  // ignoreUnknownValues drops the unknown member instead of refusing the row.
  await table.insert([unknown], {ignoreUnknownValues: true});
  // The same insertId twice is stored once (best-effort de-duplication).
  await table.insert([{insertId: 'k-1', json: {order: 'D'}}, {insertId: 'k-1', json: {order: 'D'}}], {raw: true});
  const [rows] = await table.getRows();
  assert.deepStrictEqual(rows.map((r) => r.order), ['A', 'C', 'D']);
  assert.strictEqual(rows[0].amount, 10);
  assert.deepStrictEqual(rows[0].tags, ['x', 'y']);
  assert.strictEqual(rows[0].ts.value, '2024-05-01T10:00:00.000Z');
  assert.strictEqual(rows[1].amount, null);
});

test('BigQuery client setMetadata adds a column; a type change is refused', async () => {
  const bq = new BigQuery({projectId: 'proj', apiEndpoint: base, authClient: await authClient()});
  const [ds] = await bq.createDataset('stream3');
  const [table] = await ds.createTable('orders', {schema: [{name: 'order', type: 'STRING'}]});
  await assert.rejects(table.insert([{order: 'A', city: 'Pune'}]), (e) => e.name === 'PartialFailureError');
  const [md] = await table.getMetadata();
  await table.setMetadata({schema: {fields: md.schema.fields.concat([{name: 'city', type: 'STRING'}])}});
  await table.insert([{order: 'A', city: 'Pune'}]);
  const [rows] = await table.getRows();
  assert.deepStrictEqual(rows, [{order: 'A', city: 'Pune'}]);
  await assert.rejects(table.setMetadata({schema: {fields: [{name: 'order', type: 'INTEGER'},
    {name: 'city', type: 'STRING'}]}}), (e) => e.code === 400 && /does not match/.test(e.message));
});

test('BigQuery fake control endpoints inject a row error and an outage', async () => {
  const bq = new BigQuery({projectId: 'proj', apiEndpoint: base, authClient: await authClient(),
    autoRetry: false});
  const [ds] = await bq.createDataset('stream4');
  const [table] = await ds.createTable('orders', {schema: [{name: 'order', type: 'STRING'}]});
  // count -1: the client resends failed rows itself (partialRetries), so the
  // error must outlast its retries.
  await call('POST', '/_fake/bq/row_errors', {field: 'order', equals: 'B', message: 'quota for B', count: -1});
  await assert.rejects(table.insert([{order: 'A'}, {order: 'B'}], {skipInvalidRows: true}), (e) => {
    assert.deepStrictEqual(e.errors.map((x) => [x.row.order, x.errors[0].message]), [['B', 'quota for B']]);
    return true;
  });
  await call('DELETE', '/_fake/bq/row_errors');
  await call('POST', '/_fake/bq/outage', {enabled: true});
  await assert.rejects(table.insert([{order: 'C'}]), (e) => e.code === 503);
  await call('POST', '/_fake/bq/outage', {enabled: false});
  await table.insert([{order: 'C'}]);
  const [rows] = await table.getRows();
  assert.deepStrictEqual(rows.map((r) => r.order), ['A', 'C']);
});
