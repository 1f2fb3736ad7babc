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
    await a.reserve('client_auth_failures', 'shared-client');
    await b.reserve('client_auth_failures', 'shared-client');
    await a.reserve('client_auth_failures', 'shared-client');
    await b.reserve('client_auth_failures', 'shared-client');
    await assert.rejects(a.reserve('client_auth_failures', 'shared-client'), /Too many requests/);
    await assert.rejects(b.reserve('client_auth_failures', 'shared-client'), /Too many requests/);
  } finally {
    ra.disconnect();
    rb.disconnect();
  }
});

test('with REDIS_URL, 40 parallel charges split over two instances pass the shared budget at most its size, and a refund is seen by both', async () => {
  const config = parseConfig({ RATE_LIMIT_LOGIN_FAILURES: '10', REDIS_URL: server.url });
  const [ra, rb] = [await connect(), await connect()];
  try {
    const instances = [createRateLimits(config, { redis: ra }), createRateLimits(config, { redis: rb })];
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => instances[i % 2]!.reserve('login_failures', 'user:u|ip:x')));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 10);
    const refundable = await instances[0]!.reserve('login_failures', 'user:v|ip:x');
    for (let i = 0; i < 9; i++) await instances[1]!.reserve('login_failures', 'user:v|ip:x');
    await refundable.refund();
    await instances[1]!.reserve('login_failures', 'user:v|ip:x');
    await assert.rejects(instances[0]!.reserve('login_failures', 'user:v|ip:x'), /Too many requests/);
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
