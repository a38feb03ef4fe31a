// The scaffolding the repo's small Node.js API fakes share (lark_fake,
// slack_fake): their state and its reset, JSON replies, injected failures,
// the /_fake/ control endpoints, and the HTTP server with its start-up line.
// Node builtins only. The C++ side that starts a fake is node_fake.h.
//
// Control endpoints (JSON bodies and replies):
//   POST /_fake/reset   the state as fresh() makes it
//   POST /_fake/setup   the fake's setup(body)
//   POST /_fake/fail    pushes {times: 1, ...body} on state.failures (see takeFailure)
//   GET  /_fake/state   the fake's view()
// A control body that is not JSON is HTTP 400 {"error":"bad json"}; an unknown
// control path is HTTP 404 {"error":"no such control endpoint"}.
'use strict';

const http = require('node:http');
const {URL} = require('node:url');

// Replies `body` as JSON with HTTP `status` and extra `headers`.
function send(res, status, body, headers = {}) {
  res.writeHead(status, {'Content-Type': 'application/json; charset=utf-8', ...headers});
  res.end(JSON.stringify(body));
}

// Takes the first injected failure that `matches` accepts off
// state.failures, counting down its `times` (removed at 0); null when none.
function takeFailure(state, matches) {
  const i = state.failures.findIndex(matches);
  if (i < 0) return null;
  const f = state.failures[i];
  if (--f.times <= 0) state.failures.splice(i, 1);
  return f;
}

// Runs a fake on 127.0.0.1, port `--port N` from the command line (0 or
// absent: any), and prints "listening on <port>" once it accepts.
//   state                    the fake's state object, filled in place by
//                            fresh() now and on every reset (so the fake's
//                            code can hold it in a const); needs `failures`
//   fresh()                  a new state's fields
//   setup(body)              POST /_fake/setup
//   view()                   GET /_fake/state's reply
//   api(req, res, url, raw)  every other request (`raw`: the body as text)
function serve({state, fresh, setup, view, api}) {
  const reset = () => {
    for (const k of Object.keys(state)) delete state[k];
    Object.assign(state, fresh());
  };
  reset();

  const control = (req, res, url, raw) => {
    let body = {};
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch (e) {
        return send(res, 400, {error: 'bad json'});
      }
    }
    const p = url.pathname;
    if (p === '/_fake/reset' && req.method === 'POST') {
      reset();
      return send(res, 200, {});
    }
    if (p === '/_fake/setup' && req.method === 'POST') {
      setup(body);
      return send(res, 200, {});
    }
    if (p === '/_fake/fail' && req.method === 'POST') {
      state.failures.push({times: 1, ...body});
      return send(res, 200, {});
    }
    if (p === '/_fake/state' && req.method === 'GET') return send(res, 200, view());
    return send(res, 404, {error: 'no such control endpoint'});
  };

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const url = new URL(req.url, 'http://fake');
      if (url.pathname.startsWith('/_fake/')) return control(req, res, url, raw);
      return api(req, res, url, raw);
    });
  });
  const i = process.argv.indexOf('--port');
  const port = i >= 0 ? Number(process.argv[i + 1]) : 0;
  server.listen(port, '127.0.0.1', () => {
    console.log(`listening on ${server.address().port}`);
  });
  return server;
}

module.exports = {send, serve, takeFailure};
