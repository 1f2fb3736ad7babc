// RFC 8628 device authorization grant over real HTTP and PostgreSQL: the client starts at
// /device_authorization, the user enters the code on /device and signs in through the ordinary pages, the
// client polls /token. Each rule has a test named after it (the Chromium walk with openid-client is
// test/e2e/device-flow.browser.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import * as oidc from 'openid-client';
import { manualClock } from '../../../src/clock.js';
import { sha256 } from '../../../src/crypto/random.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createClient, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';
import { dpopKey, dpopProof, serverNonce } from '../../helpers/dpop.js';
import { DEVICE_CODE_GRANT, approveOnDevicePage, enterUserCode, pollToken, requestDeviceAuthorization, startDevice } from './device-world.js';

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const grants = [DEVICE_CODE_GRANT, 'refresh_token'] as never[];

describe('device authorization grant (RFC 8628)', () => {
  let t: TestApp;
  const clock = manualClock(Date.now());
  let device: ClientFixture;
  let publicDevice: ClientFixture;
  before(async () => {
    t = await startTestApp({ clock, env: { ...NO_LIMITS, DEVICE_POLL_INTERVAL: '5' } });
    device = await createClient(t.core.db, t.core.clock, { type: 'confidential', name: 'Living-room TV', grantTypes: grants, redirectUris: [] });
    publicDevice = await createClient(t.core.db, t.core.clock, { name: 'CLI tool', grantTypes: grants, redirectUris: [] });
  });
  after(() => t.close());

  test('the device authorization answers both codes, the verification URIs, expires_in and interval; the user code is 8 consonants as XXXX-XXXX; both codes are stored hashed', async () => {
    const started = await startDevice(t.url, device);
    assert.match(started.user_code, USER_CODE);
    assert.ok(started.device_code.length >= 43);
    assert.equal(started.verification_uri, `${t.config.ISSUER}/device`);
    assert.equal(started.verification_uri_complete, `${t.config.ISSUER}/device?user_code=${started.user_code}`);
    assert.equal(started.expires_in, t.config.DEVICE_CODE_TTL);
    assert.equal(started.interval, 5);
    const { rows } = await sql<{
      device_code_hash: string;
      user_code_hash: string;
    }>`select device_code_hash, user_code_hash from device_authorizations where device_code_hash = ${sha256(started.device_code)}`.execute(t.core.db);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.user_code_hash, sha256(started.user_code.replace('-', '')));
    const { rows: plain } =
      await sql`select 1 from device_authorizations where device_code_hash = ${started.device_code} or user_code_hash = ${started.user_code}`.execute(
        t.core.db,
      );
    assert.equal(plain.length, 0);
  });

  test('a public client starts by client_id alone; a client not registered for the device_code grant gets unauthorized_client; an unknown scope invalid_scope', async () => {
    assert.equal((await requestDeviceAuthorization(t.url, publicDevice)).status, 200);
    const web = await createClient(t.core.db, t.core.clock);
    const refused = await requestDeviceAuthorization(t.url, web);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'unauthorized_client');
    const unknown = await requestDeviceAuthorization(t.url, device, { scope: 'openid launch:missiles' });
    assert.equal(unknown.body.error, 'invalid_scope');
    const wrongSecret = await requestDeviceAuthorization(t.url, { client: device.client, secret: 'wrong' });
    assert.equal(wrongSecret.status, 401);
  });

  test('discovery advertises device_authorization_endpoint and the device_code grant type', async () => {
    const document = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    assert.equal(document.device_authorization_endpoint, `${t.config.ISSUER}/device_authorization`);
    assert.ok((document.grant_types_supported as string[]).includes(DEVICE_CODE_GRANT));
  });

  test('openid-client: initiateDeviceAuthorization, the user approves on /device, pollDeviceAuthorizationGrant gets an access token, an id_token and a refresh token that refreshes', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const config = await oidc.discovery(new URL(t.url), device.client.id, undefined, oidc.ClientSecretBasic(device.secret!), {
      execute: [oidc.allowInsecureRequests],
    });
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid offline_access' });
    const { result } = await approveOnDevicePage(t.url, started.user_code, user.username);
    assert.equal(result.searchParams.get('outcome'), 'approved');
    // The library waits `interval` seconds of real time before its first poll; the server's clock is ours.
    const tokens = await oidc.pollDeviceAuthorizationGrant(config, started);
    assert.equal(tokens.claims()!.sub, user.id);
    assert.deepEqual(tokens.claims()!.amr, ['pwd']);
    assert.ok(tokens.refresh_token);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.ok(refreshed.access_token);
  });

  test('the link alone approves nothing: verification_uri_complete shows the code prefilled for the user to confirm, and looks nothing up', async () => {
    const started = await startDevice(t.url, device);
    const browser = new Browser(t.url);
    const page = await browser.get(new URL(started.verification_uri_complete).pathname + new URL(started.verification_uri_complete).search);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(html, new RegExp(`value="${started.user_code}"`));
    assert.match(html, /Check that this is the code your device shows/);
    assert.equal(browser.cookies.has('gatehouse_session'), false, 'no session before the user submits');
    const { rows } = await sql<{ entries: number }>`select entries from device_authorizations where device_code_hash = ${sha256(started.device_code)}`.execute(
      t.core.db,
    );
    assert.equal(rows[0]!.entries, 0);
    assert.equal((await pollToken(t.url, device, started.device_code)).body.error, 'authorization_pending');
  });

  test('the consent of a device flow is always shown, names the client and the scopes, and warns to approve only what the user started', async () => {
    const firstParty = await createClient(t.core.db, t.core.clock, {
      type: 'confidential',
      name: 'First-party TV',
      grantTypes: grants,
      redirectUris: [],
      skipConsent: true,
    });
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const started = await startDevice(t.url, firstParty, 'openid profile');
    const { consentHtml, result } = await approveOnDevicePage(t.url, started.user_code, user.username);
    assert.equal(result.searchParams.get('outcome'), 'approved');
    assert.match(consentHtml, /First-party TV/);
    assert.match(consentHtml, /\(profile\)/);
    assert.match(consentHtml, /Only allow this if you started it yourself/);
  });

  test('access_denied: the user denies on the consent page', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const started = await startDevice(t.url, device);
    const { result } = await approveOnDevicePage(t.url, started.user_code, user.username, 'deny');
    assert.equal(result.searchParams.get('outcome'), 'denied');
    const poll = await pollToken(t.url, device, started.device_code);
    assert.equal(poll.status, 400);
    assert.equal(poll.body.error, 'access_denied');
  });

  test('slow_down: a poll sooner than the interval gets slow_down and the interval grows by 5 s', async () => {
    const started = await startDevice(t.url, device);
    assert.equal((await pollToken(t.url, device, started.device_code)).body.error, 'authorization_pending');
    assert.equal((await pollToken(t.url, device, started.device_code)).body.error, 'slow_down');
    clock.advance(5_000);
    // 5 s is no longer enough: the interval is now 10 s.
    assert.equal((await pollToken(t.url, device, started.device_code)).body.error, 'slow_down');
    clock.advance(15_000);
    assert.equal((await pollToken(t.url, device, started.device_code)).body.error, 'authorization_pending');
  });

  test('expired_token: a device_code past its lifetime, even approved, gets expired_token and no tokens', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const started = await startDevice(t.url, device);
    await approveOnDevicePage(t.url, started.user_code, user.username);
    clock.advance(t.config.DEVICE_CODE_TTL * 1000 + 1000);
    const poll = await pollToken(t.url, device, started.device_code);
    assert.equal(poll.status, 400);
    assert.equal(poll.body.error, 'expired_token');
    // Nor can the code be entered any more.
    const late = await enterUserCode(new Browser(t.url), started.user_code);
    assert.equal(late.status, 400);
  });

  test('a device code for another client: invalid_grant, and the code stays redeemable by its own client', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const started = await startDevice(t.url, device);
    await approveOnDevicePage(t.url, started.user_code, user.username);
    const stolen = await pollToken(t.url, publicDevice, started.device_code);
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.error, 'invalid_grant');
    const own = await pollToken(t.url, device, started.device_code);
    assert.equal(own.status, 200, JSON.stringify(own.body));
  });

  test('parallel redemption once: of 12 parallel polls of an approved device_code exactly one gets tokens, and a later poll gets invalid_grant', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const started = await startDevice(t.url, device);
    await approveOnDevicePage(t.url, started.user_code, user.username);
    const polls = await Promise.all(Array.from({ length: 12 }, () => pollToken(t.url, device, started.device_code)));
    assert.equal(polls.filter((p) => p.status === 200).length, 1, JSON.stringify(polls.map((p) => p.body.error ?? 'tokens')));
    assert.deepEqual(new Set(polls.filter((p) => p.status !== 200).map((p) => p.body.error)), new Set(['invalid_grant']));
    assert.equal((await pollToken(t.url, device, started.device_code)).body.error, 'invalid_grant');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from oauth_grants where user_id = ${user.id}`.execute(t.core.db);
    assert.equal(rows[0]!.n, 1);
  });

  test('an approval decides once: a second browser entering the same code reaches nothing to approve', async () => {
    const [first, second] = [await createUser(t.core.db, t.core.clock, SIGN_IN), await createUser(t.core.db, t.core.clock, SIGN_IN)];
    const started = await startDevice(t.url, device);
    const { result } = await approveOnDevicePage(t.url, started.user_code, first.username);
    assert.equal(result.searchParams.get('outcome'), 'approved');
    const again = await enterUserCode(new Browser(t.url), started.user_code);
    assert.equal(again.status, 400);
    const tokens = await pollToken(t.url, device, started.device_code);
    assert.equal(tokens.status, 200);
    assert.notEqual(second.id, first.id);
  });

  test('DPoP as elsewhere: a poll with a proof gets DPoP-bound tokens (cnf.jkt) and a refresh token bound to the key', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const started = await startDevice(t.url, device);
    await approveOnDevicePage(t.url, started.user_code, user.username);
    const key = await dpopKey();
    const tokenUrl = `${t.url}/token`;
    const nonce = await serverNonce(tokenUrl);
    const poll = await pollToken(t.url, device, started.device_code, { dpop: await dpopProof(key, tokenUrl, { nonce, iat: Math.floor(clock.now() / 1000) }) });
    assert.equal(poll.status, 200, JSON.stringify(poll.body));
    assert.equal(poll.body.token_type, 'DPoP');
    const payload = JSON.parse(Buffer.from(String(poll.body.access_token).split('.')[1]!, 'base64url').toString()) as { cnf?: { jkt?: string } };
    assert.ok(payload.cnf?.jkt);
    const { rows } = await sql<{
      dpop_jkt: string | null;
    }>`select r.dpop_jkt from refresh_tokens r join device_authorizations d on d.grant_id = r.grant_id where d.device_code_hash = ${sha256(started.device_code)}`.execute(
      t.core.db,
    );
    assert.equal(rows[0]!.dpop_jkt, payload.cnf!.jkt);
  });

  test('a malformed or missing device_code is invalid_request or invalid_grant in RFC 6749 JSON, never a 500', async () => {
    const missing = await fetch(`${t.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: DEVICE_CODE_GRANT, client_id: publicDevice.client.id }),
    });
    assert.equal(missing.status, 400);
    assert.equal(((await missing.json()) as { error: string }).error, 'invalid_request');
    const junk = await pollToken(t.url, publicDevice, '\u0000'.repeat(3) + 'x'.repeat(5000));
    assert.equal(junk.body.error, 'invalid_grant');
    const form = parseForm(await (await new Browser(t.url).get('/device')).text());
    assert.equal(form.action, '/device');
  });
});

describe('guessing user codes is bounded (RFC 8628 5.1)', () => {
  test('guessed user codes are bounded per address: past RATE_LIMIT_USER_CODES wrong codes a minute, even the right code is refused (charged before checking)', async () => {
    const t = await startTestApp({ env: { RATE_LIMIT_USER_CODES: '10', OVERLOAD_MAX_EVENT_LOOP_DELAY: '0' } });
    try {
      const { client } = await createClient(t.core.db, t.core.clock, { grantTypes: grants, redirectUris: [] });
      const started = await startDevice(t.url, { client });
      const browser = new Browser(t.url);
      await browser.get('/device');
      const form = parseForm(await (await browser.get('/device')).text());
      // In parallel: a budget that is only checked after the lookup would let all 20 be evaluated.
      const guesses = await Promise.all(Array.from({ length: 20 }, () => browser.post('/device', { ...form.hidden, user_code: 'BBBB-BBBB' })));
      const statuses = guesses.map((g) => g.status);
      assert.equal(statuses.filter((s) => s === 400).length, 10, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 10);
      const right = await browser.post('/device', { ...form.hidden, user_code: started.user_code });
      assert.equal(right.status, 429);
    } finally {
      await t.close();
    }
  });

  test('guessed user codes are bounded per code: a code entered more than 5 times is refused, whatever the address budget', async () => {
    const t = await startTestApp({ env: { RATE_LIMIT_USER_CODES: '1000', OVERLOAD_MAX_EVENT_LOOP_DELAY: '0' } });
    try {
      const { client } = await createClient(t.core.db, t.core.clock, { grantTypes: grants, redirectUris: [] });
      const started = await startDevice(t.url, { client });
      for (let i = 0; i < 5; i++) assert.equal((await enterUserCode(new Browser(t.url), started.user_code)).status, 303);
      const sixth = await enterUserCode(new Browser(t.url), started.user_code);
      assert.equal(sixth.status, 400);
      assert.match(await sixth.text(), /entered too many times/);
    } finally {
      await t.close();
    }
  });
});
