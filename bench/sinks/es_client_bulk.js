// The baseline of es_sink_bench: Elastic's official client
// (@elastic/elasticsearch, helpers.bulk) loading the same documents into the
// same es_fake, one request in flight and ~`batch` documents per request, as
// `update` + doc_as_upsert like the sink. Prints one JSON line
// {docs, failed, seconds, rate}.
//   NODE_PATH=<node_modules> node es_client_bulk.js <base url> <docs.ndjson> <batch>
'use strict';

const fs = require('node:fs');
const {Client} = require('@elastic/elasticsearch');

async function main() {
  const [base, file, batchText] = process.argv.slice(2);
  const batch = Number(batchText || 500);
  const docs = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  const op = (d) => [{update: {_index: 'bench-client', _id: d.order_number}}, {doc: d, doc_as_upsert: true}];
  // helpers.bulk flushes by size: the bytes of `batch` documents' NDJSON lines.
  const lineBytes = docs.slice(0, 100).reduce((n, d) => n + op(d).map((o) => JSON.stringify(o).length + 1)
    .reduce((a, b) => a + b, 0), 0) / Math.min(100, docs.length);
  const client = new Client({node: base});
  await client.info();
  const t0 = process.hrtime.bigint();
  const stats = await client.helpers.bulk({
    datasource: docs,
    concurrency: 1,
    flushBytes: Math.floor(lineBytes * (batch - 0.5)),
    flushInterval: 1000,
    // The helper sends the datasource document as `doc` of an update action.
    onDocument: (d) => [op(d)[0], {doc_as_upsert: true}],
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await client.close();
  process.stdout.write(JSON.stringify({docs: stats.total, failed: stats.failed, seconds,
    rate: stats.total / seconds}) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
