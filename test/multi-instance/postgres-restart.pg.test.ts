// PostgreSQL restarted under traffic (issue 8): requests that meet the outage fail with 503 + Retry-After —
// Problem Details on the API, OAuth `temporarily_unavailable` on /token — never 500, and once the server is
// back the same process serves again with no manual step (the pool reconnects by itself).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from '../../scripts/pg-cluster.mjs';
import { basicAuth } from '../oauth/fixtures.js';
import { startInstances } from './instances.js';

const SECRET = 'a-chosen-client-secret-of-forty-characters';

interface Answer {
  endpoint: 'api' | 'token';
  phase: 'before' | 'down' | 'after';
  status: number;
  retryAfter: string | null;
  contentType: string;
  body: Record<string, unknown>;
}

/** Resolves when `count` answers match; each answer arrives from a real request, no timers involved. */
function waitFor(answers: Answer[], listeners: (() => void)[], match: (a: Answer) => boolean, count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (answers.filter(match).length >= count) resolve();
      else listeners.push(check);
    };
    check();
  });
}

test('PostgreSQL stopped and restarted during traffic: 503 + Retry-After in each face, never 500, and recovery without a restart', async () => {
  const cluster = await startCluster({ maxConnections: 50 });
  // CLIENT_CACHE_TTL=0 so every /token request reads the database (a cached client would hide the outage).
  const gh = await startInstances({ databaseUrl: cluster.url, env: { CLIENT_CACHE_TTL: '0', DATABASE_POOL_SIZE: '4' } });
  try {
    const created = await gh.cli(
      'clients',
      'create',
      '--name',
      'Restart',
      '--type',
      'confidential',
      '--grant-types',
      'client_credentials',
      '--scope',
      'orders:read',
      '--secret',
      SECRET,
    );
    const authorization = basicAuth(String(created.client_id), SECRET);
    const tokenRequest = () =>
      fetch(`${gh.a.url}/token`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
    const first = await tokenRequest();
    assert.equal(first.status, 200);
    const accessToken = ((await first.json()) as { access_token: string }).access_token;
    const apiRequest = () => fetch(`${gh.a.url}/v1/orders?user_id=nobody`, { headers: { authorization: `Bearer ${accessToken}` } });

    let phase: Answer['phase'] = 'before';
    let running = true;
    const answers: Answer[] = [];
    const listeners: (() => void)[] = [];
    const record = async (endpoint: Answer['endpoint'], response: Response, at: Answer['phase']) => {
      const text = await response.text();
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = { unparsed: text.slice(0, 200) };
      }
      answers.push({
        endpoint,
        phase: at,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        contentType: response.headers.get('content-type') ?? '',
        body,
      });
      for (const listener of listeners.splice(0)) listener();
    };
    const worker = async (endpoint: Answer['endpoint']) => {
      while (running) {
        const at = phase;
        const response = await (endpoint === 'api' ? apiRequest() : tokenRequest()).catch((error: unknown) => {
          // A dropped connection means the server died: fail with what it printed, not a bare "fetch failed".
          running = false;
          throw new Error(`${endpoint} request failed (${String(error)}); server output:\n${gh.a.output().slice(-3000)}`);
        });
        await record(endpoint, response, at);
      }
    };
    const workers = [worker('api'), worker('api'), worker('token'), worker('token')];

    await waitFor(answers, listeners, (a) => a.phase === 'before' && a.status === 200, 6);
    cluster.pause();
    phase = 'down';
    await waitFor(answers, listeners, (a) => a.phase === 'down' && a.endpoint === 'api' && a.status === 503, 3);
    await waitFor(answers, listeners, (a) => a.phase === 'down' && a.endpoint === 'token' && a.status === 503, 3);
    cluster.resume();
    phase = 'after';
    await waitFor(answers, listeners, (a) => a.phase === 'after' && a.endpoint === 'api' && a.status === 200, 3);
    await waitFor(answers, listeners, (a) => a.phase === 'after' && a.endpoint === 'token' && a.status === 200, 3);
    running = false;
    await Promise.all(workers);

    const unexpected = answers.filter((a) => a.status !== 200 && a.status !== 503);
    assert.deepEqual(unexpected, [], 'only successes and 503s, never a 500');
    for (const a of answers.filter((x) => x.status === 503)) {
      assert.ok(Number(a.retryAfter) >= 1, 'every 503 carries Retry-After');
      if (a.endpoint === 'api') {
        assert.match(a.contentType, /^application\/problem\+json/);
        assert.equal(a.body.code, 'service-unavailable');
      } else {
        assert.match(a.contentType, /^application\/json/);
        assert.equal(a.body.error, 'temporarily_unavailable');
      }
    }
    assert.equal(gh.a.child.exitCode, null, 'the same process served throughout');
  } finally {
    await gh.stop();
    cluster.stop();
  }
});
