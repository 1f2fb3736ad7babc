import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { startTestApp } from './helpers/app.js';

test('logs never contain passwords, secrets, codes or tokens, even from a failing request', async () => {
  const stream = new PassThrough();
  let logs = '';
  stream.on('data', (d) => (logs += d.toString()));
  const secrets = ['hunter2-password', 'sekret-client-secret', 'the-auth-code-123', 'eyJhbGciOiJFUzI1NiJ9.payload.sig', 'rt-refresh-token-xyz'];
  const t = await startTestApp({
    logStream: stream,
    configure(app) {
      app.post('/test/fail', async (request) => {
        request.log.info({ body: request.body }, 'received');
        throw new Error('boom');
      });
    },
  });
  try {
    await fetch(`${t.url}/test/fail?access_token=${secrets[3]}&code=${secrets[2]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secrets[3]}`, cookie: `session=${secrets[4]}` },
      body: JSON.stringify({ password: secrets[0], client_secret: secrets[1], code: secrets[2], refresh_token: secrets[4] }),
    });
    await fetch(`${t.url}/nope?refresh_token=${secrets[4]}`);
  } finally {
    await t.close();
  }
  assert.ok(logs.includes('"boom"') || logs.includes('boom'), 'the error itself is logged');
  for (const secret of secrets) assert.ok(!logs.includes(secret), `log leaked ${secret}`);
});
