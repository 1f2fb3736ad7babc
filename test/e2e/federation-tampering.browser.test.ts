// Tampering with the upstream round trip in flight, in Chromium against a REAL upstream (node-oidc-provider):
// the way out to the upstream is held, and the browser is sent on with one parameter rewritten, so every other
// part is the genuine exchange. An authorization response naming another issuer (RFC 9207 `iss`), and an id_token whose
// nonce is not the one this browser's request sent, are refused with a page — never a sign-in, never a 500 —
// and recorded as login.failed with their reason. (State tampering and the browser binding are in
// federation.browser.test.ts.) Each test is named after its rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { authorizeQuery } from '../interaction/browserless.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { createUser, PASSWORD } from '../helpers/users.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { pageText, startFederationWorld, type FederationWorld } from './federation-world.js';

describe('tampering with the upstream round trip', () => {
  let w: FederationWorld;
  let client: Client;
  let upstream: IdentityProvider;

  before(async () => {
    w = await startFederationWorld();
    upstream = await w.addProvider({ slug: 'upstream', name: 'Upstream' });
    client = (await createClient(w.t.core.db, w.t.core.clock, { name: 'Shop', redirectUris: [w.clientPage.redirectUri] })).client;
  });
  after(async () => {
    await w?.close();
  });

  /** A linked account: an untampered round trip would sign it in. */
  async function linkedAccount(subject: string) {
    const user = await createUser(w.t.core.db, w.t.core.clock, { password: PASSWORD });
    await w.t.core.db.insertInto('federated_identities').values({ provider_id: upstream.id, subject, user_id: user.id, email: null }).execute();
    return user;
  }
  /**
   * Clicks "Continue with Upstream" and holds the way out (as a browser gets it, with its cookies set): the
   * URL of the upstream's authorization request, for the test to send the browser on with.
   */
  async function wayOut(page: Page): Promise<string> {
    let location: string | undefined;
    await page.route('**/interaction/*/federation', async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      location = response.headers().location;
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'held', headers: { 'set-cookie': response.headers()['set-cookie'] ?? '' } });
    });
    await page.goto(w.t.url + authorizeQuery(client.id, w.clientPage.redirectUri, { scope: 'openid' }));
    await page.click('text=Continue with Upstream');
    await page.waitForSelector('text=held');
    assert.ok(location, 'the way out to the upstream');
    return location;
  }

  const signedIn = async (userId: string) =>
    (await w.t.core.db.selectFrom('browser_sessions').select('id_hash').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
  const lastFailure = async () =>
    (await w.t.core.db.selectFrom('audit_events').select('details').where('type', '=', 'login.failed').orderBy('occurred_at', 'desc').executeTakeFirst())
      ?.details as { method?: string; reason?: string } | undefined;

  test('iss tampering (RFC 9207): an authorization response naming another issuer is refused with a page, and nobody is signed in', async () => {
    const user = await linkedAccount('iss-tampered');
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = { sub: 'iss-tampered' };
    // The genuine answer, as the upstream's redirects give it; the browser then brings it back with another iss.
    const callback = new URL(await w.upstream.follow(await wayOut(page)));
    const sawIss = callback.searchParams.get('iss') === w.upstream.issuer;
    callback.searchParams.set('iss', 'https://attacker.example');
    const answer = await page.goto(callback.href);
    assert.equal(answer?.status(), 400);
    assert.ok(sawIss, 'the upstream does send iss (its discovery document promises it)');
    assert.match(await pageText(page), /cannot continue/);
    assert.equal(await signedIn(user.id), false);
    assert.deepEqual(await lastFailure(), { face: 'interaction', method: 'federation', reason: 'issuer_mismatch' });
    await page.close();
  });

  test("nonce tampering: an id_token whose nonce is not the one this browser's request sent is refused with a page, and nobody is signed in", async () => {
    const user = await linkedAccount('nonce-tampered');
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    w.upstream.next = { sub: 'nonce-tampered' };
    // The request leaves for the upstream with another nonce: the upstream signs an id_token carrying it.
    const request = new URL(await wayOut(page));
    assert.ok(request.searchParams.get('nonce'), 'the request carries a nonce');
    request.searchParams.set('nonce', 'a-nonce-this-browser-never-sent');
    const answer = page.waitForResponse((r) => r.url().includes('/federation/upstream/callback'));
    await page.goto(request.href);
    assert.equal((await answer).status(), 400);
    assert.match(await pageText(page), /cannot continue/);
    assert.equal(await signedIn(user.id), false);
    assert.deepEqual(await lastFailure(), { face: 'interaction', method: 'federation', reason: 'nonce_mismatch' });
    await page.close();
  });
});
