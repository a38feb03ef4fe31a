// Drives integration/es_fake with Elastic's official Node.js client
// (@elastic/elasticsearch v8, pinned in package.json) to show that the fake
// answers as Elasticsearch does: the client's product check (GET / and the
// x-elastic-product header), bulk() per-item results (upsert, update of a
// missing document → 404 document_missing_exception, injected 400/429),
// helpers.bulk (429 items retried by the helper, 400 items dropped), get()
// of present and missing documents, and the client's retry over a 503
// outage. Run by es_official_client_test.sh with NODE_PATH set.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const {Client, errors} = require('@elastic/elasticsearch');
const {startFake} = require('./test_support');

let fake, base, client;

async function control(method, p, body) {
  const res = await fetch(base + p, {method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: {'Content-Type': 'application/json'}});
  assert.strictEqual(res.status, 200, `control ${method} ${p}`);
  return res.json();
}

test.before(async () => {
  ({process: fake, base} = await startFake(path.join(__dirname, '..', '..', 'es_fake', 'es_fake.js')));
  client = new Client({node: base, maxRetries: 3, requestTimeout: 5000});
});

test.after(async () => {
  await client.close();
  fake.kill();
});

test.beforeEach(() => control('POST', '/_fake/reset'));

test('info() passes the client product check and reports version 8', async () => {
  const info = await client.info();
  assert.strictEqual(info.version.number.split('.')[0], '8');
  assert.strictEqual(info.tagline, 'You Know, for Search');
});

test('bulk() gives per-item results: upsert, update of a missing document, index', async () => {
  const res = await client.bulk({operations: [
    {update: {_index: 'orders', _id: 'A', routing: 'r1'}}, {doc: {n: 1, s: 'x'}, doc_as_upsert: true},
    {update: {_index: 'orders', _id: 'B'}}, {doc: {n: 2}},
    {index: {_index: 'orders', _id: 'C'}}, {n: 3},
  ]});
  assert.strictEqual(res.errors, true);
  assert.deepStrictEqual(res.items.map((i) => Object.keys(i)[0]), ['update', 'update', 'index']);
  assert.strictEqual(res.items[0].update.status, 201);
  assert.strictEqual(res.items[0].update.result, 'created');
  assert.strictEqual(res.items[1].update.status, 404);
  assert.strictEqual(res.items[1].update.error.type, 'document_missing_exception');
  assert.strictEqual(res.items[2].index.status, 201);

  // The upserted document merges a partial update, and get() reads it.
  const again = await client.bulk({operations: [
    {update: {_index: 'orders', _id: 'A'}}, {doc: {s: 'y'}},
  ]});
  assert.strictEqual(again.errors, false);
  assert.strictEqual(again.items[0].update.result, 'updated');
  const doc = await client.get({index: 'orders', id: 'A'});
  assert.strictEqual(doc.found, true);
  assert.deepStrictEqual(doc._source, {n: 1, s: 'y'});
  assert.strictEqual(doc._routing, 'r1');
  assert.strictEqual(doc._version, 2);
});

test('get() of a missing document is a 404 ResponseError with found=false', async () => {
  await client.index({index: 'orders', id: 'X', document: {n: 1}});
  await assert.rejects(client.get({index: 'orders', id: 'nope'}), (e) => {
    assert.ok(e instanceof errors.ResponseError);
    assert.strictEqual(e.meta.statusCode, 404);
    assert.strictEqual(e.body.found, false);
    return true;
  });
  await assert.rejects(client.get({index: 'no-such-index', id: 'X'}),
    (e) => e.meta.statusCode === 404 && e.body.error.type === 'index_not_found_exception');
});

test('bulk() reports injected per-item failures for the items they target only', async () => {
  await control('POST', '/_fake/item_faults', {status: 400, id: 'bad'});
  await control('POST', '/_fake/item_faults', {status: 429, count: 1});
  const res = await client.bulk({operations: [
    {update: {_index: 'orders', _id: 'one'}}, {doc: {n: 1}, doc_as_upsert: true},
    {update: {_index: 'orders', _id: 'bad'}}, {doc: {n: 2}, doc_as_upsert: true},
    {update: {_index: 'orders', _id: 'three'}}, {doc: {n: 3}, doc_as_upsert: true},
  ]});
  // The 400 fault is for id "bad" only; the 429 fault takes the next item ("one").
  assert.deepStrictEqual(res.items.map((i) => i.update.status), [429, 400, 201]);
  assert.strictEqual(res.items[0].update.error.type, 'es_rejected_execution_exception');
  assert.strictEqual(res.items[1].update.error.type, 'mapper_parsing_exception');
  const count = await client.count({index: 'orders'});
  assert.strictEqual(count.count, 1);
});

test('helpers.bulk retries 429 items, drops 400 items and loads the rest', async () => {
  await control('POST', '/_fake/item_faults', {status: 429, count: 5});
  await control('POST', '/_fake/item_faults', {status: 400, id: 'doc-7', count: -1});
  const docs = Array.from({length: 1000}, (_, i) => ({id: 'doc-' + i, n: i}));
  const dropped = [];
  const stats = await client.helpers.bulk({
    datasource: docs,
    flushBytes: 10000,
    retries: 3,
    wait: 10,
    onDocument: (d) => [{update: {_index: 'bulk', _id: d.id}}, {doc_as_upsert: true}],
    onDrop: (d) => dropped.push(d),
  });
  assert.strictEqual(stats.total, 1000);
  assert.strictEqual(stats.failed, 1);
  assert.strictEqual(stats.successful, 999);
  assert.strictEqual(dropped.length, 1, JSON.stringify(dropped));
  assert.strictEqual(dropped[0].status, 400);
  assert.strictEqual(dropped[0].operation.update._id, 'doc-7');
  assert.deepStrictEqual(dropped[0].document.doc, {id: 'doc-7', n: 7});
  const s = await control('GET', '/_fake/stats');
  assert.strictEqual(s.itemStatus['429'], 5, 'the 429 items were answered and then retried');
  const count = await client.count({index: 'bulk'});
  assert.strictEqual(count.count, 999);
  const doc = await client.get({index: 'bulk', id: 'doc-500'});
  assert.deepStrictEqual(doc._source, {id: 'doc-500', n: 500});
});

test('the client retries over a short 503 outage; a longer one surfaces as 503', async () => {
  await control('POST', '/_fake/outage', {requests: 2});
  const res = await client.index({index: 'orders', id: 'after-outage', document: {n: 1}});
  assert.strictEqual(res.result, 'created');
  assert.strictEqual((await control('GET', '/_fake/stats')).refusedRequests, 2);
  await control('POST', '/_fake/outage', {requests: 100});
  await assert.rejects(client.info(), (e) => e.meta && e.meta.statusCode === 503);
  await control('DELETE', '/_fake/outage');
  assert.strictEqual((await client.info()).cluster_name, 'sluice-es-fake');
});
