// Secrets hygiene: a full run (login, consent, code exchange, refresh, API calls with the bearer token,
// keyed payments, client_credentials, introspection, revocation, logout) with the app's pino output
// captured at the most verbose level; no password, client secret, code, refresh token or access token —
// nor their encoded forms or JWT segments — may appear in it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { basicAuth, formEncode, postForm } from '../oauth/fixtures.js';
import { authorize, bearer, C_SECRET, exchange, startWorld, token, type World } from './helpers/world.js';
import { Browser } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/users.js';

let w: World;
let log = '';
before(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => (log += chunk.toString()));
  w = await startWorld({ logStream: stream, env: { LOG_LEVEL: 'trace' } });
});
after(() => w.close());

/** Every form in which a secret could leak: raw, URL/form-encoded, base64 and base64url, and JWT segments. */
function forms(secret: string): string[] {
  const out = new Set([
    secret,
    encodeURIComponent(secret),
    formEncode(secret),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
  ]);
  const parts = secret.split('.');
  if (parts.length === 3) for (const part of parts.slice(1)) if (part.length >= 16) out.add(part);
  return [...out].filter((s) => s.length >= 8);
}

test('secrets never appear in the logs of a full run, even at LOG_LEVEL=trace', async () => {
  const secrets: Record<string, string> = { password: PASSWORD, 'client secret A': w.A.secret, 'client secret B': w.B.secret, 'client secret C': C_SECRET };

  // Login + consent + code exchange (client A, Basic).
  const browser = new Browser(w.url);
  const a = await authorize(
    w,
    w.A,
    { scope: 'openid offline_access profile orders:read orders:write payments:write users:read', prompt: 'consent' },
    { browser },
  );
  secrets.code = a.code;
  secrets.code_verifier = a.verifier;
  const tokens = await exchange(w, w.A, a);
  assert.equal(tokens.status, 200);
  secrets['access token'] = String(tokens.body.access_token);
  secrets['refresh token'] = String(tokens.body.refresh_token);
  secrets['id token'] = String(tokens.body.id_token);

  // A failed login with a wrong password (the attempted password must not be logged either).
  const wrong = 'wrong-password-0f9e8d7c';
  secrets['wrong password'] = wrong;
  const { authorizeUrl } = await import('./helpers/world.js');
  const { parseForm } = await import('../helpers/browser.js');
  const b2 = new Browser(w.url);
  const start = await b2.get(authorizeUrl(w.B.id));
  const form = parseForm(await (await b2.get(start.headers.get('location')!)).text());
  await b2.post(form.action, { ...form.hidden, username: w.U1.username, password: wrong });

  // Refresh (client A), then B's client_secret_post flow.
  const refreshed = await token(w, w.A, { grant_type: 'refresh_token', refresh_token: secrets['refresh token']! });
  assert.equal(refreshed.status, 200);
  secrets['rotated refresh token'] = String(refreshed.body.refresh_token);
  secrets['second access token'] = String(refreshed.body.access_token);
  const b = await authorize(w, w.B, {}, { browser });
  secrets['code B'] = b.code;
  assert.equal((await exchange(w, w.B, b)).status, 200);

  // API calls with the bearer token, including a keyed payment and an order.
  const at = secrets['second access token']!;
  assert.equal((await bearer(w, '/v1/users/me', at)).status, 200);
  const key = randomUUID();
  const payment = await bearer(w, '/v1/payments', at, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ amount: '12.00', currency: 'EUR', account: 'ACC-SECRET-ISH' }),
  });
  assert.equal(payment.status, 201);
  const order = await bearer(w, '/v1/orders', at, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ currency: 'EUR', items: [{ sku: 'S', quantity: 1, unit_price: '1.00' }] }),
  });
  assert.equal(order.status, 201);
  assert.equal((await bearer(w, '/userinfo', at)).status, 200);
  // A bad token too (errors are where secrets tend to be logged).
  assert.equal((await bearer(w, '/v1/users/me', `${at}x`)).status, 401);

  // client_credentials with C's special secret, a wrong secret, introspection and revocation.
  const cc = await postForm(`${w.url}/token`, { grant_type: 'client_credentials', scope: 'users:read' }, { authorization: basicAuth(w.C.id, C_SECRET) });
  assert.equal(cc.status, 200);
  secrets['service token'] = String(cc.body.access_token);
  const wrongSecret = 'wrong-client-secret-5a4b3c2d1e';
  secrets['wrong client secret'] = wrongSecret;
  assert.equal((await postForm(`${w.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(w.C.id, wrongSecret) })).status, 401);
  assert.equal((await postForm(`${w.url}/introspect`, { token: at }, { authorization: basicAuth(w.A.id, w.A.secret) })).status, 200);
  assert.equal((await postForm(`${w.url}/revoke`, { token: secrets['rotated refresh token']! }, { authorization: basicAuth(w.A.id, w.A.secret) })).status, 200);
  // Reuse of a rotated refresh token (a security event is logged — with the family id, not the token).
  assert.equal((await token(w, w.A, { grant_type: 'refresh_token', refresh_token: secrets['refresh token']! })).status, 400);
  await browser.get('/logout');

  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(log.split('\n').length > 20, 'the log was captured');
  const leaks: string[] = [];
  for (const [name, secret] of Object.entries(secrets))
    for (const form of forms(secret)) if (log.includes(form)) leaks.push(`${name} (as ${form.slice(0, 12)}…)`);
  assert.deepEqual(leaks, []);
  // Headers that carry credentials are redacted, and cookies never logged raw.
  assert.doesNotMatch(log, /"authorization":"(Basic|Bearer) [^"]/i);
  assert.doesNotMatch(log, /"cookie":"[^"]*=/i);
});
