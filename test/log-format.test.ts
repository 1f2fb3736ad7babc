// Development logs at a terminal are readable lines; everywhere else they stay one JSON object per line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { formatLogLine, prettyLogStream, wantsPrettyLogs } from '../src/log-format.js';
import { loggerOptions } from '../src/logger.js';

test('logs are pretty only when stdout is a terminal and NODE_ENV is not production', () => {
  assert.equal(wantsPrettyLogs(true, 'development'), true);
  assert.equal(wantsPrettyLogs(true, 'test'), true);
  assert.equal(wantsPrettyLogs(true, 'production'), false);
  assert.equal(wantsPrettyLogs(false, 'development'), false);
  assert.equal(wantsPrettyLogs(undefined, 'development'), false);
});

test('a pino line becomes "time LEVEL message key=value", nested fields flattened, with the error stack below', () => {
  const line = JSON.stringify({
    level: 30,
    time: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    pid: 1,
    hostname: 'h',
    reqId: 'r-1',
    req: { method: 'GET', path: '/x' },
    msg: 'incoming request',
  });
  assert.equal(formatLogLine(line), '03:04:05.678 INFO  incoming request  reqId=r-1 req.method=GET req.path=/x\n');
  const failed = formatLogLine(JSON.stringify({ level: 50, time: 0, msg: 'CLI command failed', err: { message: 'boom', stack: 'Error: boom\n    at x' } }));
  assert.equal(failed, '00:00:00.000 ERROR CLI command failed\n  Error: boom\n      at x\n');
  assert.equal(formatLogLine('not json'), 'not json\n');
});

test('the pretty stream keeps the redaction of the JSON logger (no secret reaches the terminal)', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  const log = pino(loggerOptions('info'), prettyLogStream(out, false));
  log.info({ body: { password: 'hunter2-password', client_secret: 'sekret' }, user: 'alice' }, 'received');
  await new Promise((resolve) => setImmediate(resolve));
  assert.match(text, /INFO {2}received {2}body\.password=\[redacted\] body\.client_secret=\[redacted\] user=alice\n$/);
  assert.doesNotMatch(text, /hunter2|sekret/);
});
