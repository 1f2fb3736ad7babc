// Client authentication with secrets (RFC 6749 2.3.1, 5.2) and for public clients, at /token.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import * as oauth from 'oauth4webapi';
import { manualClock } from '../../../src/clock.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from '../fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';

const clock = manualClock(Date.now());
let t: TestApp;
let basic: RegisteredClient;
let post: RegisteredClient;
let special: RegisteredClient;
let publicClient: RegisteredClient;
let tokenUrl: string;
const SPECIAL_SECRET = 'a:b+c%d/e=f g-0123456789abcdefghijklmnopq';

before(async () => {
  t = await startTestApp({ clock, env: NO_LIMITS });
  tokenUrl = `${t.url}/token`;
  basic = await registerClient(t.core, { token_endpoint_auth_method: 'client_secret_basic' });
  post = await registerClient(t.core, { token_endpoint_auth_method: 'client_secret_post' });
  special = await registerClient(t.core, { token_endpoint_auth_method: 'client_secret_basic' }, { secret: SPECIAL_SECRET });
  publicClient = await registerClient(t.core, {
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    redirect_uris: ['http://127.0.0.1/cb'],
    scope: 'openid',
  });
});
after(() => t.close());

const cc = { grant_type: 'client_credentials' };

test('client_secret_basic with a secret containing ": + % / = space" works when both halves are form-url-encoded', async () => {
  const res = await postForm(tokenUrl, cc, { authorization: basicAuth(special.id, SPECIAL_SECRET) });
  assert.equal(res.status, 200);
  // oauth4webapi encodes the same way (RFC 6749 2.3.1).
  const as = { issuer: t.url, token_endpoint: tokenUrl };
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    { client_id: special.id },
    oauth.ClientSecretBasic(SPECIAL_SECRET),
    {},
    {
      [oauth.allowInsecureRequests]: true,
    },
  );
  assert.equal(response.status, 200);
});

test('client_secret_basic form-decodes + as a space', async () => {
  const raw = Buffer.from(`${special.id}:${SPECIAL_SECRET.replace(/%/g, '%25').replace(/\+/g, '%2B').replace(/ /g, '+')}`).toString('base64');
  const res = await postForm(tokenUrl, cc, { authorization: `Basic ${raw}` });
  assert.equal(res.status, 200);
});

test('a wrong secret via Basic is 401 invalid_client with WWW-Authenticate: Basic realm', async () => {
  const res = await postForm(tokenUrl, cc, { authorization: basicAuth(basic.id, `${basic.secret}x`) });
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'invalid_client');
  assert.equal(res.headers.get('www-authenticate'), 'Basic realm="gatehouse"');
  assert.equal(res.headers.get('cache-control'), 'no-store');
});

test('an unknown client and a wrong secret get identical status, headers and body (no enumeration)', async () => {
  const wrong = await postForm(tokenUrl, cc, { authorization: basicAuth(basic.id, 'wrong-secret') });
  const unknown = await postForm(tokenUrl, cc, { authorization: basicAuth('no-such-client', 'wrong-secret') });
  assert.equal(unknown.status, wrong.status);
  assert.equal(unknown.text, wrong.text);
  assert.equal(unknown.headers.get('www-authenticate'), wrong.headers.get('www-authenticate'));
  const wrongPost = await postForm(tokenUrl, { ...cc, client_id: post.id, client_secret: 'wrong' });
  const unknownPost = await postForm(tokenUrl, { ...cc, client_id: 'nobody', client_secret: 'wrong' });
  assert.equal(wrongPost.status, 401);
  assert.equal(unknownPost.text, wrongPost.text);
  assert.equal(wrongPost.headers.get('www-authenticate'), null);
});

test('an unknown client and a wrong secret take comparable time (interleaved medians within 25 ms or 25 %)', async () => {
  const once = async (id: string) => {
    const start = performance.now();
    await postForm(tokenUrl, cc, { authorization: basicAuth(id, 'wrong-secret') });
    return performance.now() - start;
  };
  const wrong: number[] = [];
  const unknown: number[] = [];
  // Interleaved, so a change in machine load affects both series alike.
  for (let i = 0; i < 21; i++) {
    wrong.push(await once(basic.id));
    unknown.push(await once(`no-such-client-${i % 3}`));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [w, u] = [median(wrong), median(unknown)];
  assert.ok(Math.abs(w - u) < Math.max(25, 0.25 * Math.max(w, u)), `wrong secret ${w.toFixed(1)} ms vs unknown client ${u.toFixed(1)} ms`);
});

test('a malformed Basic header (not base64, no colon, empty client id) is 401 invalid_client, never 5xx', async () => {
  for (const header of [
    'Basic !!!not-base64!!!',
    `Basic ${Buffer.from('no-colon').toString('base64')}`,
    `Basic ${Buffer.from(':secret').toString('base64')}`,
    `Basic ${Buffer.from('%zz:x').toString('base64')}`,
    'Basic ',
  ]) {
    const res = await postForm(tokenUrl, cc, { authorization: header });
    assert.equal(res.status, 401, header);
    assert.equal(res.body.error, 'invalid_client', header);
  }
});

test('client_secret_post authenticates with client_id and client_secret in the body', async () => {
  const res = await postForm(tokenUrl, { ...cc, client_id: post.id, client_secret: post.secret });
  assert.equal(res.status, 200);
});

test('only the registered method is accepted: a Basic client using post, or a post client using Basic, is invalid_client', async () => {
  const viaPost = await postForm(tokenUrl, { ...cc, client_id: basic.id, client_secret: basic.secret });
  assert.equal(viaPost.status, 401);
  assert.equal(viaPost.body.error, 'invalid_client');
  const viaBasic = await postForm(tokenUrl, cc, { authorization: basicAuth(post.id, post.secret) });
  assert.equal(viaBasic.status, 401);
  assert.equal(viaBasic.body.error, 'invalid_client');
});

test('two authentication methods in one request (Basic plus client_secret in the body) is invalid_request', async () => {
  const res = await postForm(tokenUrl, { ...cc, client_secret: basic.secret }, { authorization: basicAuth(basic.id, basic.secret) });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'invalid_request');
  assert.equal(res.body.access_token, undefined);
});

test('Basic credentials for one client with client_id of another in the body issue no tokens', async () => {
  const res = await postForm(tokenUrl, { ...cc, client_id: post.id }, { authorization: basicAuth(basic.id, basic.secret) });
  assert.equal(res.status, 400);
  assert.equal(res.body.access_token, undefined);
});

test('a request without any client credentials is 401 invalid_client', async () => {
  const res = await postForm(tokenUrl, cc);
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'invalid_client');
});

test('a non-Basic Authorization scheme at /token is 401 invalid_client', async () => {
  const res = await postForm(tokenUrl, cc, { authorization: `Bearer ${basic.secret}` });
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'invalid_client');
});

test('a confidential client cannot authenticate with client_id alone (method none)', async () => {
  const res = await postForm(tokenUrl, { ...cc, client_id: basic.id });
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'invalid_client');
});

test('a public client is identified by client_id alone and still cannot use client_credentials', async () => {
  const res = await postForm(tokenUrl, { ...cc, client_id: publicClient.id });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'unauthorized_client');
});

test('a public client presenting a secret is invalid_client (it has none)', async () => {
  const res = await postForm(tokenUrl, { ...cc, client_id: publicClient.id, client_secret: 'anything' });
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'invalid_client');
});

test('a deleted client cannot authenticate once CLIENT_CACHE_TTL has passed', async () => {
  const doomed = await registerClient(t.core);
  assert.equal((await postForm(tokenUrl, cc, { authorization: basicAuth(doomed.id, doomed.secret) })).status, 200);
  await t.core.db.deleteFrom('clients').where('id', '=', doomed.id).execute();
  clock.advance((t.config.CLIENT_CACHE_TTL + 1) * 1000);
  const res = await postForm(tokenUrl, cc, { authorization: basicAuth(doomed.id, doomed.secret) });
  assert.equal(res.status, 401);
});

test('only the SHA-256 of a client secret is stored', async () => {
  const row = await t.core.db.selectFrom('clients').select('secret_hash').where('id', '=', basic.id).executeTakeFirstOrThrow();
  assert.notEqual(row.secret_hash, basic.secret);
  assert.ok(!JSON.stringify(await t.core.db.selectFrom('clients').selectAll().execute()).includes(basic.secret));
});
