// Opens the gateway's API reference (/docs) in Debian's Chromium through
// puppeteer-core and checks that it renders: no console error, no page error,
// no failed request, and every operation of /api/openapi.json listed under
// its service. Writes a screenshot. Exit code 0 when all holds.
//   node check.cjs BASE_URL SCREENSHOT_PATH
// NODE_PATH: the node_modules of gateway/apidocs (puppeteer-core).
'use strict';
const puppeteer = require('puppeteer-core');

async function main() {
  const [base, screenshot] = process.argv.slice(2);
  const spec = await (await fetch(base + '/api/openapi.json')).json();
  const want = {};  // tag -> operation ids
  for (const item of Object.values(spec.paths)) {
    for (const op of Object.values(item)) {
      if (!op || !op.operationId) continue;
      for (const tag of op.tags || ['default']) (want[tag] = want[tag] || []).push(op.operationId);
    }
  }
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // root in a container: no setuid sandbox; no GPU on the test machine.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  const problems = [];
  try {
    const page = await browser.newPage();
    await page.setViewport({width: 1400, height: 1000});
    page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    page.on('requestfailed', (r) => problems.push('request failed: ' + r.url() + ' ' + r.failure().errorText));
    page.on('response', (r) => { if (r.status() >= 400) problems.push('HTTP ' + r.status() + ' ' + r.url()); });
    const t0 = Date.now();
    await page.goto(base + '/docs', {waitUntil: 'networkidle0', timeout: 60000});
    await page.waitForSelector('[id^="tag/"]', {timeout: 60000});
    const rendered = Date.now() - t0;
    // Redoc gives each operation's section the id "tag/<Tag>/operation/<operationId>".
    const ids = new Set(await page.$$eval('[id*="/operation/"]', (els) => els.map((e) => e.id)));
    const title = await page.title();
    await page.screenshot({path: screenshot, fullPage: false});
    let listed = 0, total = 0;
    for (const [tag, ops] of Object.entries(want).sort()) {
      const missing = ops.filter((op) => !ids.has(`tag/${tag}/operation/${op}`));
      total += ops.length;
      listed += ops.length - missing.length;
      console.log(`${tag}: ${ops.length - missing.length} of ${ops.length} operations listed`);
      if (missing.length) problems.push(`${tag}: not listed: ${missing.join(', ')}`);
    }
    console.log(`page "${title}" rendered in ${rendered} ms; ${listed} of ${total} operations ` +
                `of ${Object.keys(want).length} services listed; screenshot ${screenshot}`);
  } finally {
    await browser.close();
  }
  for (const p of problems) console.log('PROBLEM ' + p);
  process.exit(problems.length ? 1 : 0);
}

main().catch((e) => { console.log('PROBLEM ' + (e && e.stack || e)); process.exit(1); });
