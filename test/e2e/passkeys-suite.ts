// Passkeys in a real browser (Debian's chromium through playwright-core) with Chrome's virtual authenticator
// (CTAP2, internal, resident keys, user verification), on a 390-px phone screen in dark mode. The app runs
// under ISSUER http://localhost:PORT: WebAuthn refuses IP addresses as RP ID, and localhost is a secure context.
// A user registers a passkey on /account, signs out, signs in to an application without a password (the
// id_token's amr says so), then with the password and the passkey as the second factor, and removes it.
// The negative cases replay and tamper with real assertions the virtual authenticator signed.
// Screenshots go to test-output/passkeys/. Not a test file: four files run its parts, each within the runner's
// per-file time limit on a loaded machine; each starts by registering the passkey it uses (and signing in with it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { Writable } from 'node:stream';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { manualClock } from '../../src/clock.js';
import { fitsAndShoot, launchBrowser, startClientPage, typeInto } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, postToken, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { authorizeQuery } from '../interaction/browserless.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { RFC7636 } from '../helpers/pkce.js';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { passkeysRepository } from '../../src/storage/repositories/passkeys-repository.js';

const OUTPUT = join(process.cwd(), 'test-output', 'passkeys');

interface Captured {
  url: string;
  body: { csrf: string; response: Record<string, unknown> };
}

export type PasskeyPart = 'second-factor' | 'removal' | 'replay' | 'origin-counter-csrf';

export function passkeySuite(part: PasskeyPart): void {
  describe(`passkeys in a real browser (virtual authenticator, 390 px, dark mode): ${part}`, () => {
    let t: TestApp;
    let clientPage: Server;
    let clientPort: number;
    let redirectUri: string;
    let fixture: ClientFixture;
    let user: User;
    let browser: Browser | undefined;
    let context: BrowserContext;
    let page: Page;
    let cdp: CDPSession;
    let authenticatorId: string;
    const clock = manualClock(Date.now());
    const logLines: Record<string, unknown>[] = [];
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    /** The reasons of the refusals logged since `from`. */
    const refusals = (from: number) =>
      logLines
        .slice(from)
        .filter((l) => l.msg === 'request refused')
        .map((l) => String(l.reason));

    /** The browser's cookies for the app, for requests the test sends itself. */
    const cookieHeader = async () => (await context.cookies(t.url)).map((c) => `${c.name}=${c.value}`).join('; ');
    const postJson = async (url: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(new URL(url, t.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: await cookieHeader(), origin: t.url, ...headers },
        body: JSON.stringify(body),
      });

    /** Clicks the passkey button and captures the assertion the page would post, without letting it reach the server. */
    async function captureAssertion(buttonName: string): Promise<Captured> {
      let resolve!: (c: Captured) => void;
      const captured = new Promise<Captured>((r) => {
        resolve = r;
      });
      await page.route('**/passkey/verify', async (route) => {
        resolve({ url: route.request().url(), body: route.request().postDataJSON() });
        await route.abort();
      });
      await page.getByRole('button', { name: buttonName }).press('Enter');
      const result = await captured;
      await page.unroute('**/passkey/verify');
      return result;
    }

    async function openLogin(state: string, extra: Record<string, string> = {}): Promise<void> {
      await page.goto(t.url + authorizeQuery(fixture.client.id, redirectUri, { state, ...extra }));
      await page.waitForSelector('h1:text("Sign in")');
    }

    async function idTokenClaims(): Promise<Record<string, unknown>> {
      const url = new URL(page.url());
      const exchanged = await postToken(t.url, fixture, {
        grant_type: 'authorization_code',
        code: url.searchParams.get('code')!,
        redirect_uri: redirectUri,
        code_verifier: RFC7636.verifier,
      });
      assert.equal(exchanged.status, 200);
      const { payload } = await jwtVerify(String(exchanged.body.id_token), createRemoteJWKSet(new URL(`${t.url}/.well-known/jwks.json`)), {
        issuer: t.url,
        audience: fixture.client.id,
      });
      return payload;
    }

    before(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      const port = await freePort();
      t = await startTestApp({ clock, logStream, env: { PORT: String(port), ISSUER: `http://localhost:${port}` } });
      ({ server: clientPage, port: clientPort, redirectUri } = await startClientPage());
      fixture = await createClient(t.core.db, t.core.clock, { name: 'Photo Printer', redirectUris: [redirectUri] });
      user = await createUser(t.core.db, t.core.clock, SIGN_IN);
      browser = await launchBrowser();
      context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
      page = await context.newPage();
      cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
      }));
    });
    after(async () => {
      await browser?.close();
      await new Promise((resolve) => clientPage.close(resolve));
      await t.close();
    });

    test('a passkey registered on /account signs in without a password and completes an OAuth code flow (amr hwk user)', async () => {
      await page.goto(`${t.url}/account`);
      await typeInto(page, 'Username', user.username);
      await typeInto(page, 'Password', PASSWORD, true);
      await page.waitForSelector('h1:text("Your account")');
      await typeInto(page, 'Name of the new passkey', 'Work laptop', true);
      await page.waitForSelector('p.notice:text("The passkey was added.")');
      assert.match((await page.textContent('#passkeys')) ?? '', /Work laptop[\s\S]*last used never/);
      await fitsAndShoot(page, OUTPUT, 'account-passkey');

      await page.getByRole('button', { name: 'Sign out', exact: true }).press('Enter');
      await page.waitForSelector('h1:text("Sign in")');
      await openLogin('pl-1');
      await fitsAndShoot(page, OUTPUT, 'login');
      await page.getByRole('button', { name: 'Sign in with a passkey' }).press('Enter');
      await page.waitForURL((url) => url.href.startsWith(redirectUri));
      assert.equal(new URL(page.url()).searchParams.get('state'), 'pl-1');
      const claims = await idTokenClaims();
      assert.equal(claims.sub, user.id);
      assert.deepEqual(claims.amr, ['hwk', 'user', 'mfa']);
      assert.equal(claims.acr, 'urn:gatehouse:acr:mfa');
    });

    if (part === 'second-factor') {
      test('a user with a passkey completes it after the password: the second factor gives amr pwd hwk mfa', async () => {
        await openLogin('sf-1', { prompt: 'login' });
        await typeInto(page, 'Username', user.username);
        await typeInto(page, 'Password', PASSWORD, true);
        await page.waitForSelector('h1:text("Two-step verification")');
        assert.equal(await page.locator('input[name="otp"]').count(), 0, 'no authenticator app: no code field is offered');
        await fitsAndShoot(page, OUTPUT, 'second-factor');
        await page.getByRole('button', { name: 'Use a passkey' }).press('Enter');
        await page.waitForURL((url) => url.href.startsWith(redirectUri));
        const claims = await idTokenClaims();
        assert.deepEqual(claims.amr, ['pwd', 'hwk', 'mfa']);
      });
    }

    if (part === 'replay') {
      test('challenge single use: the same assertion posted twice at once is accepted once, the other use finds no challenge', async () => {
        await openLogin('replay', { prompt: 'login' });
        const { body } = await captureAssertion('Sign in with a passkey');
        const services = t.app.core.flow;
        // Straight at the ceremony (a replay over HTTP would first meet the replaced browser session).
        const interactionHash = (
          await t.core.db
            .selectFrom('webauthn_challenges')
            .select('bound_to')
            .where('purpose', '=', 'authenticate')
            .where('bound_to', 'like', 'interaction:%')
            .execute()
        ).map((r) => r.bound_to);
        assert.equal(interactionHash.length, 1);
        const outcomes = await Promise.all([
          services.passkeys.authenticate(interactionHash[0]!, body.response, undefined),
          services.passkeys.authenticate(interactionHash[0]!, body.response, undefined),
        ]);
        assert.equal(outcomes.filter((o) => o.ok).length, 1, 'exactly one use succeeds');
        assert.deepEqual(
          outcomes.filter((o) => !o.ok).map((o) => !o.ok && o.reason),
          ['challenge_not_found'],
        );
      });

      test('a replayed assertion over HTTP is refused with a Problem, never a 500', async () => {
        await openLogin('replay-http', { prompt: 'login' });
        const { url, body } = await captureAssertion('Sign in with a passkey');
        const first = await postJson(url, body);
        const mark = logLines.length;
        assert.equal(first.status, 200);
        const again = await postJson(url, body);
        assert.ok(again.status >= 400 && again.status < 500, `replay answered ${again.status}`);
        assert.match(again.headers.get('content-type') ?? '', /application\/problem\+json/);
        assert.equal(refusals(mark).length, 1, 'the log says why');
      });
    }

    if (part === 'origin-counter-csrf') {
      test('origin check: an assertion signed for another origin is refused', async () => {
        await openLogin('origin', { prompt: 'login' });
        const loginUrl = page.url();
        const csrf = await page.locator('section[data-passkey] input[name="csrf"]').getAttribute('value');
        const optionsUrl = `${new URL(loginUrl).pathname}/passkey/options`;
        const options = (await (await postJson(optionsUrl, { csrf })).json()) as { challenge: string; rpId: string };
        // Another origin with the same RP ID (localhost on another port): the browser signs with that origin.
        const evil = await context.newPage();
        await evil.goto(`http://localhost:${clientPort}/`);
        const evilCdp = await context.newCDPSession(evil);
        await evilCdp.send('WebAuthn.enable');
        const credentials = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
        const { authenticatorId: evilAuthenticator } = await evilCdp.send('WebAuthn.addVirtualAuthenticator', {
          options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
        });
        for (const credential of credentials) await evilCdp.send('WebAuthn.addCredential', { authenticatorId: evilAuthenticator, credential });
        // Browser code as text: the test's TypeScript has no DOM types. It returns the assertion as JSON.
        const response = (await evil.evaluate(`(async () => {
      const b64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
      const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const credential = await navigator.credentials.get({ publicKey: { challenge: bytes(${JSON.stringify(options.challenge)}), rpId: ${JSON.stringify(options.rpId)}, userVerification: 'required' } });
      const r = credential.response;
      return {
        id: credential.id, rawId: b64(credential.rawId), type: 'public-key', clientExtensionResults: {},
        response: { clientDataJSON: b64(r.clientDataJSON), authenticatorData: b64(r.authenticatorData), signature: b64(r.signature), ...(r.userHandle ? { userHandle: b64(r.userHandle) } : {}) },
      };
    })()`)) as { response: { clientDataJSON: string } };
        await evil.close();
        const mark = logLines.length;
        const answer = await postJson(`${new URL(loginUrl).pathname}/passkey/verify`, { csrf, response });
        assert.equal(answer.status, 400);
        assert.deepEqual(refusals(mark), ['assertion_not_verified']);
        assert.match(String(logLines.slice(mark).find((l) => l.msg === 'request refused')?.detail), /origin/);
        const clientData = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString()) as { origin: string };
        assert.equal(clientData.origin, `http://localhost:${clientPort}`, 'the assertion really names the other origin');
      });

      test('sign counter: an assertion whose counter does not increase is refused', async () => {
        const [credential] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
        assert.ok(credential && credential.signCount > 0, 'the virtual authenticator counts');
        // A clone of the authenticator that is behind the real one: same key, counter back to 0 (its next use gives 1).
        await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
        await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, signCount: 0 } });
        await openLogin('counter', { prompt: 'login' });
        const { url, body } = await captureAssertion('Sign in with a passkey');
        const mark = logLines.length;
        const refused = await postJson(url, body);
        assert.equal(refused.status, 400);
        assert.deepEqual(refusals(mark), ['sign_counter_not_increased']);
        // CDP gives the credential id in base64; ours are base64url.
        const stored = await passkeysRepository(t.core.db, t.core.clock).find(Buffer.from(credential.credentialId, 'base64').toString('base64url'));
        assert.ok(stored && stored.signCount > 1, 'the stored counter did not move back');
        // Put the real counter back for the tests that follow.
        await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
        await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, signCount: stored.signCount + 1 } });
      });

      test('CSRF: the ceremony endpoints refuse a missing or wrong token, and another origin', async () => {
        await openLogin('csrf', { prompt: 'login' });
        const path = new URL(page.url()).pathname;
        const csrf = (await page.locator('section[data-passkey] input[name="csrf"]').getAttribute('value'))!;
        for (const endpoint of ['options', 'verify']) {
          const forged = await postJson(`${path}/passkey/${endpoint}`, { csrf: 'forged' });
          assert.equal(forged.status, 403, endpoint);
          assert.match(forged.headers.get('content-type') ?? '', /application\/problem\+json/);
          const missing = await postJson(`${path}/passkey/${endpoint}`, {});
          assert.equal(missing.status, 400, endpoint);
          const crossSite = await postJson(`${path}/passkey/${endpoint}`, { csrf }, { origin: 'https://evil.example' });
          assert.equal(crossSite.status, 403, endpoint);
        }
        const accountForged = await postJson('/account/passkeys/options', { csrf: 'forged' });
        assert.equal(accountForged.status, 403);
      });
    }

    if (part === 'removal') {
      test('removing the last passkey needs a fresh sign-in; after one it is removed', async () => {
        await context.clearCookies();
        await page.goto(`${t.url}/account`);
        await typeInto(page, 'Username', user.username);
        await typeInto(page, 'Password', PASSWORD, true);
        await page.getByRole('button', { name: 'Use a passkey' }).press('Enter');
        await page.waitForSelector('h1:text("Your account")');
        clock.advance(301_000);
        await page.getByRole('button', { name: 'Remove passkey Work laptop' }).press('Enter');
        await page.waitForSelector('p.error:has-text("Confirm it is you")');
        assert.equal(await page.locator('#passkeys li').count(), 1);

        await page.getByRole('button', { name: 'Sign out', exact: true }).press('Enter');
        await page.waitForSelector('h1:text("Sign in")');
        await page.getByRole('button', { name: 'Sign in with a passkey' }).press('Enter');
        await page.waitForSelector('h1:text("Your account")');
        await page.getByRole('button', { name: 'Remove passkey Work laptop' }).press('Enter');
        await page.waitForSelector('p.notice:text("The passkey was removed.")');
        assert.equal(await page.locator('#passkeys li').count(), 0);
        await fitsAndShoot(page, OUTPUT, 'account-removed');
      });
    }
  });
}
