// Security suite, area 16: rate limits and abuse (RFC 6749 §2.3.1 brute force; RFC 7662 §4 token scanning;
// RFC 6585 §4; RFC 9110 §10.2.3; draft-ietf-httpapi-ratelimit-headers). Runs with real (small) limits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { basicAuth, postForm, registerClient } from '../oauth/fixtures.js';
import { shopTokens } from '../helpers/shop.js';
import { authorizeUrl, startWorld, type World } from './helpers/world.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/users.js';

let w: World;
before(async () => {
  w = await startWorld({
    env: {
      RATE_LIMIT_CLIENT_AUTH_FAILURES: '20',
      RATE_LIMIT_LOGIN_FAILURES: '10',
      RATE_LIMIT_INTROSPECTION: '100',
      RATE_LIMIT_TOKEN: '8',
      RATE_LIMIT_API: '6',
    },
  });
});
after(() => w.close());

const remaining = (headers: Headers): number | undefined => {
  const value = /r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1];
  return value === undefined ? undefined : Number(value);
};

function assertRetryAfter(headers: Headers): void {
  const value = Number(headers.get('retry-after'));
  assert.ok(Number.isInteger(value) && value >= 1 && value <= 60, `Retry-After ${headers.get('retry-after')}`);
}

describe('16. rate limiting', () => {
  test('16.196 random tokens sent to /introspect by one caller → 429 past the threshold', async () => {
    const caller = await registerClient(w.t.core, { client_name: 'scanner' });
    const statuses: number[] = [];
    for (let batch = 0; batch < 6; batch++) {
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          postForm(`${w.url}/introspect`, { token: randomBytes(24).toString('base64url') }, { authorization: basicAuth(caller.id, caller.secret) }),
        ),
      );
      statuses.push(...results.map((r) => r.status));
    }
    assert.equal(statuses.filter((s) => s === 200).length, 100);
    assert.equal(statuses.filter((s) => s === 429).length, 20);
  });

  test('16.196 random tokens sent to /revoke by one caller → 429 past the threshold', async () => {
    const caller = await registerClient(w.t.core, { client_name: 'revoker' });
    let limited: Awaited<ReturnType<typeof postForm>> | undefined;
    for (let i = 0; i < 110 && !limited; i++) {
      const r = await postForm(`${w.url}/revoke`, { token: randomBytes(24).toString('base64url') }, { authorization: basicAuth(caller.id, caller.secret) });
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 200);
    }
    assert.ok(limited, 'revocation scanning is limited');
    assertRetryAfter(limited!.headers);
    assert.match(limited!.headers.get('content-type') ?? '', /^application\/json/);
  });

  test('16.197 /token: RateLimit remaining decreases monotonically and the 429 is OAuth JSON with Retry-After', async () => {
    const busy = await registerClient(w.t.core, { client_name: 'busy' });
    const seen: number[] = [];
    let limited: Awaited<ReturnType<typeof postForm>> | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const r = await postForm(
        `${w.url}/token`,
        { grant_type: 'client_credentials', scope: 'orders:read' },
        { authorization: basicAuth(busy.id, busy.secret) },
      );
      const left = remaining(r.headers);
      if (left !== undefined) seen.push(left);
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 200);
    }
    assert.ok(limited);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! <= seen[i - 1]!, `remaining ${seen.join(',')}`);
    if (seen.length) assert.equal(seen.at(-1), 0);
    assertRetryAfter(limited!.headers);
    assert.match(limited!.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(typeof limited!.body.error, 'string');
    assert.equal(limited!.headers.get('cache-control'), 'no-store');
  });

  test('16.197 /v1: the 429 is problem+json with Retry-After, and remaining decreases monotonically', async () => {
    const { token } = await shopTokens(w.t.core).user(['orders:read']);
    const seen: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const r = await fetch(`${w.url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } });
      const left = remaining(r.headers);
      if (left !== undefined) seen.push(left);
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 200);
    }
    assert.ok(limited);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! <= seen[i - 1]!);
    assertRetryAfter(limited!.headers);
    assert.match(limited!.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(((await limited!.json()) as { status: number }).status, 429);
  });

  test('16.x /healthz is never rate limited', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => fetch(`${w.url}/healthz`)));
    for (const r of results) assert.equal(r.status, 200);
  });
  // The brute-force cases run last: they lock (client_id, 127.0.0.1) and (username, 127.0.0.1).
  test('16.194 20 wrong secrets for one client_id → 429 with Retry-After; the correct secret is then refused too', async () => {
    const victim = await registerClient(w.t.core, { client_name: 'victim' });
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const r = await postForm(`${w.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(victim.id, `guess-${i}`) });
      statuses.push(r.status);
    }
    assert.deepEqual(statuses.slice(0, 20), Array(20).fill(401));
    assert.equal(statuses[20], 429);
    const right = await postForm(
      `${w.url}/token`,
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { authorization: basicAuth(victim.id, victim.secret) },
    );
    assert.equal(right.status, 429);
    assertRetryAfter(right.headers);
    assert.match(right.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(typeof right.body.error, 'string');
    assert.equal('access_token' in right.body, false);
  });

  test('16.194+ another client is not blocked by the victim’s failures, even from the same address ((client_id, address) key)', async () => {
    const bystander = await registerClient(w.t.core, { client_name: 'bystander' });
    const r = await postForm(
      `${w.url}/token`,
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { authorization: basicAuth(bystander.id, bystander.secret) },
    );
    assert.equal(r.status, 200);
  });

  test('16.194+ 10 failed logins for one username → 429 page with Retry-After; the right password is refused too', async () => {
    const browser = new Browser(w.url);
    let last: Response | undefined;
    for (let i = 0; i < 11; i++) {
      const first = await browser.get(authorizeUrl(w.A.id));
      const page = await browser.get(first.headers.get('location')!);
      const form = parseForm(await page.text());
      last = await browser.post(form.action, { ...form.hidden, username: w.U2.username, password: `wrong-${i}` });
    }
    assert.equal(last!.status, 429);
    assertRetryAfter(last!.headers);
    assert.match(last!.headers.get('content-type') ?? '', /^text\/html/);
    const first = await browser.get(authorizeUrl(w.A.id));
    const page = await browser.get(first.headers.get('location')!);
    const form = parseForm(await page.text());
    const right = await browser.post(form.action, { ...form.hidden, username: w.U2.username, password: PASSWORD });
    assert.equal(right.status, 429);
  });
});
