// The authorization server's metrics (src/oauth/oauth-metrics.ts), scraped from the real metrics listener
// after real requests: tokens issued by grant type and client, refusals by endpoint and error, a refresh-token
// reuse detection, sign-ins by method and outcome — beside the HTTP metrics and the outbox lag.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startMetricsListener, type MetricsListener } from '../../src/http/metrics-listener.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { NO_LIMITS } from '../helpers/env.js';
import { Browser } from '../helpers/browser.js';
import { createClient, postToken, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { RFC7636 } from '../helpers/pkce.js';
import { SIGN_IN, createUser } from '../helpers/users.js';
import { authorizeQuery, loginAndConsent, openInteraction, submitLogin } from '../interaction/browserless.js';

let t: TestApp;
let listener: MetricsListener;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  listener = await startMetricsListener(t.app.metrics, { host: '127.0.0.1', port: 0 });
});
after(async () => {
  await listener.close();
  await t.close();
});

const scrape = async () => (await fetch(`http://127.0.0.1:${listener.port}/metrics`)).text();
/** The value of one series, 0 when it is absent. */
function value(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

test('tokens issued by grant type and client, and refusals by endpoint and error, after real /token requests', async () => {
  const service = await createClient(t.core.db, t.core.clock, { type: 'confidential', grantTypes: ['client_credentials'], scopes: ['orders:read'] });
  for (let i = 0; i < 3; i++) assert.equal((await postToken(t.url, service, { grant_type: 'client_credentials', scope: 'orders:read' })).status, 200);
  assert.equal((await postToken(t.url, { ...service, secret: 'wrong-secret-of-enough-length-000000000' }, { grant_type: 'client_credentials' })).status, 401);
  assert.equal((await postToken(t.url, service, { grant_type: 'client_credentials', scope: 'no-such-scope' })).status, 400);
  const text = await scrape();
  assert.equal(value(text, 'oauth_tokens_issued_total', { grant_type: 'client_credentials', client_id: service.client.id }), 3);
  assert.equal(value(text, 'oauth_refusals_total', { endpoint: '/token', error: 'invalid_client' }), 1);
  assert.equal(value(text, 'oauth_refusals_total', { endpoint: '/token', error: 'invalid_scope' }), 1);
  assert.ok(value(text, 'http_requests_total', { route: '/token', status: '200' }) >= 3, 'beside the HTTP metrics');
  assert.match(text, /# HELP outbox_oldest_undelivered_age_seconds /, 'and the outbox lag');
});

test('a refresh-token reuse detection and the sign-ins by method and outcome are counted', async () => {
  const fixture = await createClient(t.core.db, t.core.clock, { scopes: ['openid', 'offline_access'] });
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const before = await scrape();
  const browser = new Browser(t.url);
  const { form } = await openInteraction(browser, authorizeQuery(fixture.client.id, REDIRECT_URI, { scope: 'openid offline_access' }));
  assert.ok((await submitLogin(browser, form, user.username, 'not the password')).status < 500);
  const location = await loginAndConsent(new Browser(t.url), authorizeQuery(fixture.client.id, REDIRECT_URI, { scope: 'openid offline_access' }), user);
  const exchange = { grant_type: 'authorization_code', code: location.searchParams.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: RFC7636.verifier };
  const tokens = await postToken(t.url, fixture, exchange);
  assert.equal(tokens.status, 200);
  const refresh = { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) };
  assert.equal((await postToken(t.url, fixture, refresh)).status, 200);
  assert.equal((await postToken(t.url, fixture, refresh)).status, 400, 'the rotated token presented again');

  const text = await scrape();
  const delta = (name: string, labels: Record<string, string>) => value(text, name, labels) - value(before, name, labels);
  const signIns = text
    .split('\n')
    .filter((l) => l.startsWith('sign_ins_total'))
    .join('; ');
  assert.equal(delta('sign_ins_total', { method: 'password', outcome: 'succeeded' }), 1, signIns);
  assert.equal(delta('sign_ins_total', { method: 'password', outcome: 'failed' }), 1, signIns);
  assert.equal(delta('oauth_refresh_token_reuse_detections_total', { client_id: fixture.client.id }), 1);
  assert.equal(value(text, 'oauth_tokens_issued_total', { grant_type: 'authorization_code', client_id: fixture.client.id }), 1);
  assert.equal(value(text, 'oauth_tokens_issued_total', { grant_type: 'refresh_token', client_id: fixture.client.id }), 1);
  assert.equal(value(text, 'oauth_refusals_total', { endpoint: '/token', error: 'invalid_grant' }), 1);
});
