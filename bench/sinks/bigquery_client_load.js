#!/usr/bin/env node
// The baseline of bigquery_bench: Google's official Node.js client
// (@google-cloud/bigquery, pinned in integration/gcp_fake/clients) loading
// N rows in 500-row table.insert calls, one after another (one worker, as the
// sink), into table <table> of dataset "stream" in the gcp_fake at <base>.
// The rows have the shape the sink sends for bench_messages.h's records
// (fields, metadata columns, an insertId per row). The table is created with
// the schema of table <like> (the one the sink created).
//   node bigquery_client_load.js <base> <key.json> <table> <like> <n> [batch]
// Prints "client rows/s: <rate>".
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const {BigQuery} = require('@google-cloud/bigquery');
const {OAuth2Client} = require('google-auth-library');

async function token(key) {
  const now = Math.floor(Date.now() / 1000);
  const enc = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = enc({alg: 'RS256', typ: 'JWT'}) + '.' + enc({iss: key.client_email,
    scope: 'https://www.googleapis.com/auth/bigquery', aud: key.token_uri, iat: now, exp: now + 3600});
  const sig = crypto.sign('RSA-SHA256', Buffer.from(input), key.private_key).toString('base64url');
  const res = await fetch(key.token_uri, {method: 'POST', body: new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: input + '.' + sig})});
  return (await res.json()).access_token;
}

function row(i) {
  const ts = new Date(1714557600000 + Math.floor(i / 1000) * 1000 + (i % 1000)).toISOString();
  return {order_number: 'order-' + i, amount: 1000 + i % 977, status: i % 2 ? 'ACTIVE' : 'INACTIVE',
    address: {city: 'Bengaluru', zip: 560001}, event_timestamp: ts, tags: ['express', 'prepaid'],
    price: 199.99, paid: true, payload: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODk=',
    message_offset: i, message_topic: 'bench', message_partition: i % 4,
    message_timestamp: new Date(1714557600000 + i).toISOString(), load_time: new Date().toISOString()};
}

async function main() {
  const [base, keyPath, tableId, like, nText, batchText] = process.argv.slice(2);
  const n = Number(nText), batch = Number(batchText || 500);
  const key = JSON.parse(fs.readFileSync(keyPath, 'utf8'));
  const auth = new OAuth2Client();
  auth.setCredentials({access_token: await token(key), expiry_date: Date.now() + 3600e3});
  const bq = new BigQuery({projectId: key.project_id, apiEndpoint: base, authClient: auth});
  const ds = bq.dataset('stream');
  const [md] = await ds.table(like).getMetadata();
  const [table] = await ds.createTable(tableId, {schema: md.schema});
  const rows = [];
  for (let i = 0; i < n; i++) rows.push(row(i));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i += batch) await table.insert(rows.slice(i, i + batch));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stdout.write('client rows/s: ' + Math.round(n / s) + '\n');
}

main().catch((e) => {
  process.stderr.write('bigquery_client_load: ' + (e.stack || e) + '\n' + JSON.stringify(e.errors || '').slice(0, 500) + '\n');
  process.exit(1);
});
