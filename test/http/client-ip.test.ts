import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '../helpers/app.js';

async function limitedByIp(env: Record<string, string>) {
  const t = await startTestApp({
    env: { RATE_LIMIT_ANONYMOUS: '2', ...env },
    configure(app) {
      app.get('/test/ip', async (request) => {
        await t.core.rateLimits.hit('anonymous', request.ip);
        return { ip: request.ip };
      });
    },
  });
  return t;
}

test('a spoofed X-Forwarded-For never resets a per-IP limit when no proxy is trusted', async () => {
  const t = await limitedByIp({});
  try {
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${t.url}/test/ip`, { headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      statuses.push(res.status);
      if (res.ok) assert.equal(((await res.json()) as { ip: string }).ip, '127.0.0.1');
    }
    assert.deepEqual(statuses, [200, 200, 429, 429]);
  } finally {
    await t.close();
  }
});

test('with TRUST_PROXY naming the proxy, the forwarded client address is the key', async () => {
  const t = await limitedByIp({ TRUST_PROXY: '127.0.0.1' });
  try {
    const res = await fetch(`${t.url}/test/ip`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(((await res.json()) as { ip: string }).ip, '203.0.113.7');
  } finally {
    await t.close();
  }
});
