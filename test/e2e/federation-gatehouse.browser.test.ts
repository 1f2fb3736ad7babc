// Gatehouse federating to another Gatehouse process (issue 30, docs/federation.md): a second Gatehouse,
// started here as a real server process on a database of its own, is the upstream OpenID provider — a user
// and a confidential client whose redirect_uri is this Gatehouse's callback, both made with its CLI as an
// operator would. This Gatehouse learns it with `gatehouse identity-providers create --issuer` (discovery),
// and Chromium signs in through it: the upstream's own login page, its id_token checked here, a local
// account created just in time, and the id_token this Gatehouse issues names `fed` in its amr. It also holds
// the callback to its rule of answering with a page, not a redirect on to the client: the upstream
// Gatehouse's login page has CSP form-action 'self' + our origin, and Chromium checks the whole redirect
// chain of its form submission against it (without the rule the browser stops at our callback).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Page } from 'playwright-core';
import { executeCommand } from '../../src/cli/execute.js';
import { federationRedirectUri } from '../../src/federation/callback-uri.js';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, typeInto, type ChromiumProfile } from '../helpers/chromium.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { createClient, postToken, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { RFC7636 } from '../helpers/pkce.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { authorizeQuery } from '../interaction/browserless.js';
import { cliWith } from '../multi-instance/instances.js';
import { LOOPBACK, pageText } from './federation-world.js';

const SLUG = 'gatehouse-two';
const SECRET_ENV = 'FEDERATION_GATEHOUSE_UPSTREAM_SECRET';
const UPSTREAM_PASSWORD = 'upstream horse battery staple';

describe('Gatehouse federating to another Gatehouse process', () => {
  let t: TestApp;
  let upstreamDb: { url: string; drop(): Promise<void> };
  let upstream: ServerProcess;
  let upstreamIssuer: string;
  let chromium: ChromiumProfile;
  let shop: ClientFixture;
  let clientServer: import('node:http').Server;
  let redirectUri: string;
  const upstreamUser = { username: 'grace', email: 'grace@two.example' };

  before(async () => {
    // This Gatehouse's address first: the upstream's client registers its callback.
    const port = await freePort();
    const issuer = `http://localhost:${port}`;
    const callback = federationRedirectUri(issuer, SLUG);

    // The second Gatehouse: its own database on the run's server, its own key, a real process.
    upstreamDb = await createPostgresDatabaseUrl();
    const upstreamEnv = { DATABASE_URL: upstreamDb.url, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url') };
    upstream = await startServerProcess(upstreamEnv);
    upstreamIssuer = upstream.url;
    const upstreamCli = cliWith({ ...upstreamEnv, ISSUER: upstreamIssuer });
    await upstreamCli(
      'users',
      'create',
      '--username',
      upstreamUser.username,
      '--password',
      UPSTREAM_PASSWORD,
      '--email',
      upstreamUser.email,
      '--email-verified',
      '--name',
      'Grace Two',
    );
    const secret = `s-${randomBytes(24).toString('base64url')}`;
    const registered = await upstreamCli(
      'clients',
      'create',
      '--name',
      'Gatehouse One',
      '--type',
      'confidential',
      '--grant-types',
      'authorization_code',
      '--scope',
      'openid email profile',
      '--redirect-uri',
      callback,
      '--secret',
      secret,
      '--skip-consent',
    );
    process.env[SECRET_ENV] = secret;

    // This Gatehouse (in-process, so the test reads its database), allowed to call loopback upstreams.
    // Under another host name than the upstream (localhost, not 127.0.0.1): cookies ignore ports, and the two
    // servers' cookies of the same name would otherwise overwrite each other in the one browser.
    t = await startTestApp({ env: { PORT: String(port), ISSUER: issuer }, outbound: LOOPBACK });
    const created = (await executeCommand(
      [
        'identity-providers',
        'create',
        '--name',
        'Gatehouse Two',
        '--slug',
        SLUG,
        '--issuer',
        upstreamIssuer,
        '--client-id',
        String(registered.client_id),
        '--client-secret-env',
        SECRET_ENV,
        '--provision',
        'on',
      ],
      t.core,
    )) as Record<string, unknown>;
    assert.equal(created.redirect_uri, callback, 'the callback registered upstream is the one create prints');
    assert.equal(created.token_endpoint, `${upstreamIssuer}/token`, "endpoints from the upstream Gatehouse's discovery document");

    clientServer = (await import('node:http')).createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>Shop</title><h1>Back at the client</h1>');
    });
    await new Promise<void>((resolve) => clientServer.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(clientServer.address() as { port: number }).port}/cb`;
    shop = await createClient(t.core.db, t.core.clock, { name: 'Shop', redirectUris: [redirectUri] });
    chromium = await launchChromium();
  });

  after(async () => {
    await chromium?.close();
    await new Promise((resolve) => clientServer?.close(resolve));
    await t?.close();
    await upstream?.stop();
    await upstreamDb?.drop();
  });

  async function signInThroughUpstream(page: Page): Promise<URL> {
    await page.goto(t.url + authorizeQuery(shop.client.id, redirectUri, { scope: 'openid email profile' }));
    await page.click('text=Continue with Gatehouse Two');
    // The upstream Gatehouse's own login page.
    await page.waitForURL((url) => url.href.startsWith(upstreamIssuer));
    await typeInto(page, 'Username', upstreamUser.username);
    const callback = page.waitForResponse((r) => r.url().includes(`/federation/${SLUG}/callback`));
    await typeInto(page, 'Password', UPSTREAM_PASSWORD, true);
    // A page of ours, not a redirect on to the client: the redirect chain from the upstream's login form is
    // checked against that form's CSP form-action, which names only our callback's origin.
    const answer = await callback;
    assert.equal(answer.status(), 200, `the callback answered ${answer.status()} ${answer.headers().location ?? ''}`);
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    return new URL(page.url());
  }

  async function idTokenClaims(landed: URL): Promise<Record<string, unknown>> {
    const exchanged = await postToken(t.url, shop, {
      grant_type: 'authorization_code',
      code: landed.searchParams.get('code') ?? '',
      redirect_uri: redirectUri,
      code_verifier: RFC7636.verifier,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
    const { payload } = await jwtVerify(String(exchanged.body.id_token), createRemoteJWKSet(new URL(`${t.url}/.well-known/jwks.json`)), {
      issuer: t.url,
      audience: shop.client.id,
    });
    return payload;
  }

  test("JIT account through an upstream Gatehouse: the first sign-in creates the local user from its claims and the id_token's amr includes fed (the callback hands over with a page, which a strict upstream form-action lets through)", async () => {
    const page = await chromium.context.newPage();
    const landed = await signInThroughUpstream(page);
    const claims = await idTokenClaims(landed);
    assert.ok((claims.amr as string[]).includes('fed'), `amr ${JSON.stringify(claims.amr)}`);

    const local = await t.core.db.selectFrom('users').selectAll().where('id', '=', String(claims.sub)).executeTakeFirstOrThrow();
    assert.equal(local.email, upstreamUser.email, "the e-mail from the upstream's claims");
    assert.equal(local.email_verified, true, 'the upstream Gatehouse asserted the address as verified');
    assert.equal(local.name, 'Grace Two', "the name from the upstream's claims");
    assert.ok(!local.password_hash.startsWith('$'), 'a provisioned account has no password here');
    const link = await t.core.db
      .selectFrom('federated_identities as f')
      .innerJoin('identity_providers as p', 'p.id', 'f.provider_id')
      .select(['f.subject', 'f.user_id'])
      .where('p.slug', '=', SLUG)
      .executeTakeFirstOrThrow();
    assert.equal(link.user_id, local.id);
    assert.match(link.subject, /^[0-9a-f-]{36}$/, "the upstream Gatehouse's subject (its user id)");
    const types = (await t.core.db.selectFrom('audit_events').select('type').where('subject', '=', local.id).execute()).map((r) => r.type);
    for (const type of ['account.provisioned', 'account.identity_linked', 'login.succeeded']) assert.ok(types.includes(type), `${type} in ${types.join(', ')}`);
    await page.close();
  });

  test('the second sign-in through the upstream Gatehouse finds the link: the same local user, nothing new created', async () => {
    await chromium.context.clearCookies();
    const page = await chromium.context.newPage();
    const claims = await idTokenClaims(await signInThroughUpstream(page));
    assert.ok((claims.amr as string[]).includes('fed'));
    const users = await t.core.db.selectFrom('users').select('id').where('email', '=', upstreamUser.email).execute();
    assert.deepEqual(
      users.map((u) => u.id),
      [claims.sub],
    );
    assert.doesNotMatch(await pageText(page), /error/i);
    await page.close();
  });
});
