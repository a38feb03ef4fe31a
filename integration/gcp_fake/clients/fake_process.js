// The official-client tests' shared setup: start a fake server script on a
// free port (it prints "listening on <port>") and say where it listens.
'use strict';

const {spawn} = require('node:child_process');

// Runs `script --port 0` with node; resolves to {process, port, base} once
// the script prints its port, rejects if it exits first. The caller kills
// `process` after its tests.
async function startFake(script) {
  const child = spawn(process.execPath, [script, '--port', '0'],
    {stdio: ['ignore', 'pipe', 'inherit']});
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening on (\d+)/.exec(String(d));
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (c) => reject(new Error(script + ' exited ' + c)));
  });
  return {process: child, port, base: 'http://127.0.0.1:' + port};
}

module.exports = {startFake};
