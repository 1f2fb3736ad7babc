import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { parseConfig } from '../../src/config.js';
import { createRateLimits } from '../../src/http/rate-limit.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let server: RedisServer;
before(async () => {
  server = await startRedisServer();
});
after(() => server.stop());

const connect = async () => {
  const redis = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  await once(redis, 'ready');
  return redis;
};

test('with REDIS_URL a limit holds across instances: two processes share one budget', async () => {
  const config = parseConfig({ RATE_LIMIT_CLIENT_AUTH_FAILURES: '4', REDIS_URL: server.url });
  const [ra, rb] = [await connect(), await connect()];
  try {
    const a = createRateLimits(config, { redis: ra });
    const b = createRateLimits(config, { redis: rb });
    await a.fail('client_auth_failures', 'shared-client');
    await b.fail('client_auth_failures', 'shared-client');
    await a.fail('client_auth_failures', 'shared-client');
    await b.fail('client_auth_failures', 'shared-client');
    await assert.rejects(a.assertNotBlocked('client_auth_failures', 'shared-client'), /Too many requests/);
    await assert.rejects(b.assertNotBlocked('client_auth_failures', 'shared-client'), /Too many requests/);
  } finally {
    ra.disconnect();
    rb.disconnect();
  }
});

test('when Redis is down, limits fall back to per-instance memory (fail-open per instance) instead of refusing every request', async () => {
  const config = parseConfig({ RATE_LIMIT_TOKEN: '2', REDIS_URL: server.url });
  const redis = await connect();
  const storeErrors: unknown[] = [];
  try {
    const limits = createRateLimits(config, { redis, onStoreError: (e) => storeErrors.push(e) });
    await server.stop();
    // Requests keep being served…
    assert.ok(await limits.hit('token', 'k'));
    assert.ok(await limits.hit('token', 'k'));
    // …and the in-memory fallback still enforces the limit on this instance.
    await assert.rejects(limits.hit('token', 'k'), /Too many requests/);
  } finally {
    redis.disconnect();
    await server.restart();
  }
});
