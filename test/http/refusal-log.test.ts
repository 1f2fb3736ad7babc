// Every refusal says why in the log: a reason code and the client_id (and for redirect problems the presented
// and registered values), on a line carrying the trace id the caller was shown (the Reference on an error
// page, X-Request-Id on every answer), and no secret. The app's own pino output is captured.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { authorize, authorizeUrl, exchange, REG, startWorld, type World } from '../security/helpers/world.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/users.js';

let w: World;
let log = '';
before(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => (log += chunk.toString()));
  w = await startWorld({ logStream: stream, env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_LOGIN_FAILURES: '2', RATE_LIMIT_CLIENT_AUTH_FAILURES: '2' } });
});
after(() => w.close());

type Line = Record<string, unknown>;
const lines = (): Line[] =>
  log
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

/** The refusal line of the request with this trace id; fails when there is none or it leaks a secret. */
function refusal(traceId: string | null | undefined, ...secrets: string[]): Line {
  assert.ok(traceId, 'the answer names its trace id');
  const line = lines().find((l) => l.trace_id === traceId && l.msg === 'request refused');
  assert.ok(line, `no refusal logged under ${traceId}`);
  const text = JSON.stringify(line);
  for (const secret of secrets) assert.ok(!text.includes(secret), `the refusal line leaks ${secret.slice(0, 6)}…`);
  return line;
}

const reference = (html: string): string | undefined => /Reference: <code>([^<]+)<\/code>/.exec(html)?.[1];

let address = 0;
const from = () => ({ 'x-forwarded-for': `192.0.2.${++address}` });

describe('refusals are logged with a reason code and the client_id under the trace id shown to the caller', () => {
  test('client authentication: a wrong secret logs wrong_secret and the client_id, not the secret', async () => {
    const wrong = 'wrong-secret-9f8e7d6c5b4a';
    const r = await postForm(`${w.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(w.C.id, wrong), ...from() });
    assert.equal(r.status, 401);
    const line = refusal(r.headers.get('x-request-id'), wrong, w.C.secret);
    assert.equal(line.reason, 'wrong_secret');
    assert.equal(line.client_id, w.C.id);
  });

  test('client authentication: an unknown client logs unknown_client and the claimed client_id', async () => {
    const r = await postForm(`${w.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth('no-such-client', 'x'.repeat(43)), ...from() });
    const line = refusal(r.headers.get('x-request-id'), 'x'.repeat(43));
    assert.equal(line.reason, 'unknown_client');
    assert.equal(line.client_id, 'no-such-client');
  });

  test('client authentication: a locked (client_id, address) logs rate_limited_client_auth_failures and the client_id', async () => {
    const address = from();
    for (let i = 0; i < 2; i++)
      await postForm(`${w.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(w.C.id, `guess-${i}-xxxxxxxx`), ...address });
    const r = await postForm(`${w.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(w.C.id, w.C.secret), ...address });
    assert.equal(r.status, 429);
    const line = refusal(r.headers.get('x-request-id'), w.C.secret);
    assert.equal(line.reason, 'rate_limited_client_auth_failures');
    assert.equal(line.client_id, w.C.id);
  });

  test('token request: a redirect_uri that differs from the authorization request logs both values, not the code', async () => {
    const a = await authorize(w, w.A, {}, {});
    const r = await exchange(w, w.A, a, { redirect_uri: 'https://client.example/other' });
    assert.equal(r.status, 400);
    const line = refusal(r.headers.get('x-request-id'), a.code, a.verifier, w.A.secret);
    assert.equal(line.reason, 'redirect_uri_mismatch');
    assert.equal(line.client_id, w.A.id);
    assert.equal(line.presented_redirect_uri, 'https://client.example/other');
    assert.equal(line.registered_redirect_uri, REG);
  });

  test('token request: an unusable code logs code_invalid and the client_id', async () => {
    const r = await postForm(
      `${w.url}/token`,
      { grant_type: 'authorization_code', code: 'made-up-code-123456', redirect_uri: REG, code_verifier: 'v'.repeat(43) },
      { authorization: basicAuth(w.A.id, w.A.secret) },
    );
    assert.equal(r.status, 400);
    const line = refusal(r.headers.get('x-request-id'), 'made-up-code-123456', w.A.secret);
    assert.equal(line.reason, 'code_invalid');
    assert.equal(line.client_id, w.A.id);
  });

  test('error page: an unregistered redirect_uri logs the presented and registered values under the Reference shown', async () => {
    const response = await fetch(`${w.url}${authorizeUrl(w.A.id, { redirect_uri: 'https://evil.example/cb' })}`);
    assert.equal(response.status, 400);
    const line = refusal(reference(await response.text()));
    assert.equal(line.reason, 'redirect_uri_not_registered');
    assert.equal(line.client_id, w.A.id);
    assert.equal(line.presented_redirect_uri, 'https://evil.example/cb');
    assert.ok((line.registered_redirect_uris as string[]).includes(REG));
  });

  test('error page: an unknown client_id logs unknown_client under the Reference shown', async () => {
    const response = await fetch(`${w.url}${authorizeUrl('nobody-registered-this')}`);
    const line = refusal(reference(await response.text()));
    assert.equal(line.reason, 'unknown_client');
    assert.equal(line.client_id, 'nobody-registered-this');
  });

  test('login: a wrong password logs wrong_password and the client_id, not the password', async () => {
    const browser = new Browser(w.url);
    const start = await browser.get(authorizeUrl(w.A.id));
    const form = parseForm(await (await browser.get(start.headers.get('location')!)).text());
    const wrong = 'wrong-password-1a2b3c4d';
    const r = await browser.post(form.action, { ...form.hidden, username: w.U1.username, password: wrong }, from());
    assert.equal(r.status, 303);
    const line = refusal(r.headers.get('x-request-id'), wrong, PASSWORD);
    assert.equal(line.reason, 'wrong_password');
    assert.equal(line.client_id, w.A.id);
    assert.equal(line.user_id, w.U1.id);
  });

  test('login: a locked (username, address) logs rate_limited_login_failures and the client_id under the Reference on the 429 page', async () => {
    const address = from();
    const attempt = async (password: string) => {
      const browser = new Browser(w.url);
      const start = await browser.get(authorizeUrl(w.B.id));
      const form = parseForm(await (await browser.get(start.headers.get('location')!)).text());
      return browser.post(form.action, { ...form.hidden, username: w.U2.username, password }, address);
    };
    for (let i = 0; i < 2; i++) await attempt(`wrong-${i}-abcdefgh`);
    const locked = await attempt(PASSWORD);
    assert.equal(locked.status, 429);
    const line = refusal(reference(await locked.text()), PASSWORD);
    assert.equal(line.reason, 'rate_limited_login_failures');
    assert.equal(line.client_id, w.B.id);
  });

  test('a page refusal (CSRF) logs its reason under the Reference shown', async () => {
    const browser = new Browser(w.url);
    const start = await browser.get(authorizeUrl(w.A.id));
    const form = parseForm(await (await browser.get(start.headers.get('location')!)).text());
    const r = await browser.post(form.action, { ...form.hidden, csrf: 'forged', username: w.U1.username, password: PASSWORD });
    assert.equal(r.status, 403);
    const line = refusal(reference(await r.text()), PASSWORD);
    assert.equal(line.reason, 'csrf_token_mismatch');
    assert.equal(line.client_id, w.A.id);
  });
});
