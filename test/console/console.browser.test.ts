// The admin console (/console, docs/console.md) in a real browser (Debian's chromium through playwright-core):
// operators sign in through Gatehouse's own pages (TOTP for admin:write), then every task runs against the
// public admin API. Each console page passes axe-core with no serious or critical violation, in light and
// dark, and is kept as a screenshot at 390 px and 1280 px, light and dark, in test-output/console/ (git-ignored).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { manualClock } from '../../src/clock.js';
import { fitsAndShoot, launchBrowser } from '../helpers/chromium.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { totpAt } from '../helpers/totp.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import { adminFixture, createBody, type AdminFixture } from '../admin/fixture.js';
import { userWithGrant } from '../admin/user-access-fixture.js';
import { consentsRepository } from '../../src/storage/consents-repository.js';
import { STRICT_OUTBOUND } from '../../src/http/outbound/outbound-policy.js';
import { startOidcUpstream, type OidcUpstream } from '../helpers/oidc-upstream.js';

// axe-core is a devDependency; required (not imported) so that the source text of its browser bundle is read.
const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const OUTPUT = join(process.cwd(), 'test-output', 'console');

describe('the admin console in a real browser', () => {
  const clock = manualClock(Date.now() - 10 * 60_000);
  let f: AdminFixture;
  let browser: Browser;
  let writer: { username: string; id: string; secret: string };
  let reader: { username: string; id: string };
  // A real OpenID provider on loopback: identity providers are registered against its discovery document.
  let upstream: OidcUpstream;
  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    f = await adminFixture({ clock, outbound: { ...STRICT_OUTBOUND, allowedClasses: ['loopback'], allowHttp: true } });
    upstream = await startOidcUpstream({ redirectUris: [] });
    const provider = await f.api('/admin/v1/identity-providers', createBody({ slug: 'corp-sso', name: 'Corp SSO', issuer: upstream.issuer, client_id: 'gatehouse', client_secret_env: 'CORP_SSO_SECRET', domains: ['corp.example'] }, crypto.randomUUID()));
    assert.equal(provider.status, 201, await provider.clone().text());
    const w = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(f.t, w);
    await f.cli('users', 'grant-admin', w.username);
    writer = { username: w.username, id: w.id, secret };
    const r = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    await f.cli('users', 'grant-admin', r.username, '--read-only');
    reader = { username: r.username, id: r.id };
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await upstream?.close();
    await f.t.close();
  });

  /** Opens /console, signs in on Gatehouse's pages (the TOTP page when the account has one), back at the overview. */
  async function signIn(context: BrowserContext, user: { username: string }, totpSecret?: string): Promise<Page> {
    // The server runs on a manual clock and DPoP proofs carry the browser's time (iat): the browser's clock is
    // the server's, paused, and moves only with it (sync()).
    await context.clock.install({ time: clock.now() });
    const page = await context.newPage();
    // (pauseAt resolves only once the context has a page; the installed clock ran meanwhile)
    await context.clock.pauseAt((await page.evaluate<number>('Date.now()')) + 2_000);
    await page.goto(`${f.t.url}/console/`);
    await page.getByLabel('Username', { exact: true }).fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password', { exact: true }).press('Enter');
    if (totpSecret) {
      clock.advance(30_000);
      await context.clock.setSystemTime(clock.now());
      const code = page.getByLabel('Code from your authenticator app', { exact: true });
      await code.fill(totpAt(totpSecret, clock.now()));
      await code.press('Enter');
    }
    return page;
  }

  /** Polls a condition read from the test side (waitForFunction would evaluate a string, which the console's CSP forbids). */
  async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (await condition()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`never: ${what}`);
  }
  const heading = (page: Page, name: string) =>
    page.getByRole('heading', { level: 1, name }).waitFor({ timeout: 10_000 }).catch(async (error: unknown) => {
      console.log(`no heading "${name}" at ${page.url()}:`, await page.locator('body').textContent().catch(() => ''));
      throw error;
    });
  const nav = async (page: Page, label: string, h1 = label) => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
    await heading(page, h1);
  };

  /** axe-core in the page (evaluated over the DevTools protocol, so the console's CSP stays as it is). */
  async function accessible(page: Page, label: string): Promise<void> {
    await page.evaluate(axeSource);
    const result = await withRunningClock(page, () => page.evaluate<{ id: string; impact: string; help: string; nodes: { target: string[] }[] }[]>(
      "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))",
    ));
    assert.deepEqual(result, [], `${label}: ${JSON.stringify(result, null, 1)}`);
  }

  /** axe waits on timers, which the paused clock holds: let it run, then put the page's time back where it was. */
  async function withRunningClock<T>(page: Page, work: () => Promise<T>): Promise<T> {
    const paused = await page.evaluate<number>('Date.now()');
    await page.clock.resume();
    try {
      return await work();
    } finally {
      await page.clock.pauseAt((await page.evaluate<number>('Date.now()')) + 2_000);
      await page.clock.setSystemTime(paused);
    }
  }

  /** The page at both widths and both colour schemes: axe passes, no sideways scrolling, a screenshot of each (NAME-WIDTH[-dark].png). */
  async function check(page: Page, label: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await accessible(page, `${label} ${scheme} ${width}px`);
        await fitsAndShoot(page, OUTPUT, `${label}-${width}${scheme === 'dark' ? '-dark' : ''}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  test('an operator signs in with TOTP and gets admin:write; every console page passes axe at 390 and 1280 px, light and dark', async () => {
    const context = await browser.newContext();
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    assert.equal(await page.getByText('Can make changes').count(), 1);
    await check(page, 'overview');
    await nav(page, 'Users');
    await check(page, 'users');
    await page.getByRole('link', { name: writer.username, exact: true }).click();
    await heading(page, `User ${writer.username}`);
    await check(page, 'user');
    await nav(page, 'Applications');
    await check(page, 'applications');
    await page.getByRole('link', { name: 'Platform team' }).click();
    await heading(page, 'Application Platform team');
    await check(page, 'application');
    await nav(page, 'APIs');
    await check(page, 'apis');
    await page.getByRole('link', { name: 'Gatehouse administration API' }).click();
    await heading(page, 'API Gatehouse administration API');
    await check(page, 'api');
    await nav(page, 'Identity providers');
    await check(page, 'identity-providers');
    await page.getByRole('link', { name: 'Corp SSO' }).click();
    await heading(page, 'Identity provider Corp SSO');
    await check(page, 'identity-provider');
    await nav(page, 'Signing keys');
    await check(page, 'signing-keys');
    await nav(page, 'Audit log');
    await check(page, 'audit-log');
    await context.close();
  });

  test('users: search, a double-clicked create makes one user, edit profile and attributes, set password, reset second factors, end sessions, the audit trail', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'Users');
    const username = `made-in-console-${Date.now()}`;
    await page.getByLabel('Username', { exact: true }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill('a long enough password');
    await page.getByLabel('Name', { exact: true }).fill('Console Made');
    await page.getByRole('button', { name: 'Create user' }).dblclick();
    await heading(page, `User ${username}`);
    const made = (await (await f.api(`/admin/v1/users?q=${username}`)).json()) as { data: { id: string }[] };
    assert.equal(made.data.length, 1, 'a double click makes one user');
    const id = made.data[0]!.id;

    // Search finds it by prefix and by id.
    await nav(page, 'Users');
    const searchbox = page.getByLabel('Username or e-mail (beginning), or user id');
    await searchbox.fill(username.slice(0, 16));
    await searchbox.press('Enter');
    await page.getByRole('link', { name: username }).waitFor();
    await searchbox.fill(id);
    await searchbox.press('Enter');
    await page.getByRole('link', { name: username }).click();
    await heading(page, `User ${username}`);

    await page.getByLabel('Family name', { exact: true }).fill('Madeson');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    assert.equal(((await (await f.api(`/admin/v1/users/${id}`)).json()) as { family_name: string }).family_name, 'Madeson');
    await page.getByLabel('Attributes (JSON object)').fill('{"team": "blue"}');
    await page.getByRole('button', { name: 'Save attributes' }).click();
    await page.getByText('Attributes saved.').waitFor();
    assert.deepEqual(((await (await f.api(`/admin/v1/users/${id}`)).json()) as { attributes: unknown }).attributes, { team: 'blue' });

    await page.getByLabel('New password', { exact: true }).fill('another long password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Password set.').waitFor();

    // A user with a browser session (signed in at /account) and a second factor: end the session, reset the factor.
    const other = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    const otherContext = await browser.newContext();
    const otherPage = await otherContext.newPage();
    await otherPage.goto(`${f.t.url}/account`);
    await otherPage.getByLabel('Username', { exact: true }).fill(other.username);
    await otherPage.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await otherPage.getByLabel('Password', { exact: true }).press('Enter');
    await otherPage.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await otherContext.close();
    await enrollTotp(f.t, other);
    await page.goto(`${f.t.url}/console/users/${other.id}`);
    await heading(page, `User ${other.username}`);
    await page.getByRole('button', { name: /^End session / }).click();
    await page.getByText('Ended.').waitFor();
    const sessions = (await (await f.api(`/admin/v1/sessions?user_id=${other.id}`)).json()) as { data: unknown[] };
    assert.equal(sessions.data.length, 0, 'the session is ended');
    await heading(page, `User ${other.username}`);
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Reset second factors' }).click();
    await page.getByText('No second factor is set up.').waitFor();
    assert.deepEqual(((await (await f.api(`/admin/v1/users/${other.id}`)).json()) as { second_factors: string[] }).second_factors, []);
    const audit = page.getByRole('table', { name: `The latest events about ${other.username}` });
    await audit.getByText('admin.user.second_factors_reset').waitFor();
    await context.close();
  });

  test('a concurrent edit gets the 412 path: "changed by someone else since you opened it" and a reload shows the other change', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    const target = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    await page.goto(`${f.t.url}/console/users/${target.id}`);
    await heading(page, `User ${target.username}`);
    // Someone else changes the user after the page was opened.
    const read = await f.api(`/admin/v1/users/${target.id}`);
    const other = await f.api(`/admin/v1/users/${target.id}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', 'if-match': read.headers.get('etag')! }, body: JSON.stringify({ name: 'Changed elsewhere' }) });
    assert.equal(other.status, 200);
    await page.getByLabel('Given name', { exact: true }).fill('Mine');
    await page.getByRole('button', { name: 'Save profile' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('changed by someone else since you opened it').waitFor();
    await fitsAndShoot(page, OUTPUT, 'stale-edit-1280');
    assert.equal(((await (await f.api(`/admin/v1/users/${target.id}`)).json()) as { given_name: string | null }).given_name, null, 'the stale write changed nothing');
    await alert.getByRole('button', { name: 'Reload' }).click();
    await until(async () => (await page.getByLabel('Name', { exact: true }).inputValue()) === 'Changed elsewhere', 'the reload shows the other change');
    await context.close();
  });

  test('applications: register (secret shown once), edit, rotate the secret, try-it URL, delete; signing keys rotate; audit filter', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'Applications');
    await page.getByLabel('Name', { exact: true }).fill('Console RP');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('https://rp.example/cb');
    await page.getByRole('button', { name: 'Register application' }).dblclick();
    const secret = await page.locator('[data-secret]').textContent();
    assert.ok(secret && secret.length > 20, 'the secret is shown');
    const list = (await (await f.api('/admin/v1/clients?limit=100')).json()) as { data: { client_id: string; client_name: string }[] };
    const made = list.data.filter((c) => c.client_name === 'Console RP');
    assert.equal(made.length, 1, 'a double click registers one application');
    await page.locator('.notice a').click();
    await heading(page, 'Application Console RP');
    assert.equal(await page.locator('[data-secret]').count(), 0, 'the secret is not shown again');
    assert.match((await page.locator('[data-try-it]').textContent()) ?? '', /\/authorize\?response_type=code&client_id=/);
    await page.getByLabel('Redirect URIs', { exact: true }).fill('https://rp.example/cb\nhttps://rp.example/other');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = await page.locator('[data-secret]').textContent();
    assert.ok(rotated && rotated !== secret);
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete application' }).click();
    await heading(page, 'Applications');
    assert.equal((await f.api(`/admin/v1/clients/${made[0]!.client_id}`)).status, 404);

    await nav(page, 'Signing keys');
    const before = ((await (await f.api('/admin/v1/signing-keys')).json()) as { data: unknown[] }).data.length;
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Rotate both keys now' }).click();
    await page.getByText('Rotated.').or(page.getByRole('heading', { level: 1, name: 'Signing keys' })).first().waitFor();
    await until(async () => (await page.locator('tbody tr').count()) === before + 2, 'two new keys listed');

    await nav(page, 'Audit log');
    await page.getByLabel('Type', { exact: true }).selectOption('signing_key.rotated');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('2 events shown.').waitFor();
    assert.match(page.url(), /type=signing_key.rotated/);
    await context.close();
  });

  test('APIs: register one (double click → one API, the introspection secret shown once), edit its scopes and claim mappings, settings, delete', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'APIs');
    const identifier = 'https://notes.example/api';
    await page.getByLabel('Identifier', { exact: true }).fill(identifier);
    await page.getByLabel('Name', { exact: true }).fill('Notes');
    await page.getByLabel('Scope name', { exact: true }).fill('notes:read');
    await page.getByLabel('Description', { exact: true }).fill('Read your notes');
    await page.getByLabel('Attributes in access tokens', { exact: true }).fill('department');
    await page.getByRole('button', { name: 'Register API' }).dblclick();
    const secret = await page.locator('[data-secret]').textContent();
    assert.ok(secret && secret.length > 20, 'the introspection secret is shown');
    const list = (await (await f.api('/admin/v1/resource-servers?limit=100')).json()) as { data: { identifier: string }[] };
    assert.equal(list.data.filter((x) => x.identifier === identifier).length, 1, 'a double click registers one API');
    await check(page, 'api-registered');
    await page.locator('.notice a').click();
    await heading(page, 'API Notes');
    assert.equal(await page.locator('[data-secret]').count(), 0, 'the secret is not shown again');
    const read = async () => (await (await f.api(`/admin/v1/resource-servers/${encodeURIComponent(identifier)}`)).json()) as { name: string; scopes: { name: string; description: string; claims?: unknown }[] };
    assert.deepEqual((await read()).scopes, [{ name: 'notes:read', description: 'Read your notes', claims: { access_token: ['department'] } }]);

    // A second scope, and the first one's mapping changed: one PATCH of the scopes.
    await page.getByRole('button', { name: 'Add a scope' }).click();
    const added = page.locator('fieldset[data-scope]').nth(1);
    await added.getByLabel('Scope name', { exact: true }).fill('notes:write');
    await added.getByLabel('Description', { exact: true }).fill('Change your notes');
    const first = page.locator('fieldset[data-scope]').first();
    await first.getByLabel('Attributes in access tokens', { exact: true }).fill('department level');
    await first.getByLabel('Attributes in ID tokens and /userinfo', { exact: true }).fill('department');
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.getByText('Scopes saved.').waitFor();
    assert.deepEqual((await read()).scopes, [
      { name: 'notes:read', description: 'Read your notes', claims: { access_token: ['department', 'level'], id_token: ['department'] } },
      { name: 'notes:write', description: 'Change your notes' },
    ]);
    await page.getByRole('table', { name: 'Scopes of Notes' }).getByText('access token: department, level; ID token: department').waitFor();
    await check(page, 'api-scopes');

    // A claim the server sets itself is refused by the API, and said in words beside the form.
    await page.locator('fieldset[data-scope]').first().getByLabel('Attributes in access tokens', { exact: true }).fill('sub');
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.getByRole('alert').getByText('reserved claim').waitFor();
    assert.equal((await read()).scopes.length, 2, 'the refused save changed nothing');
    await page.locator('fieldset[data-scope]').first().getByLabel('Attributes in access tokens', { exact: true }).fill('department');
    await page.getByRole('button', { name: 'Remove scope notes:write' }).click();
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.getByRole('button', { name: 'Remove scope notes:write' }).waitFor({ state: 'detached' });
    await until(async () => (await page.getByRole('table', { name: 'Scopes of Notes' }).locator('tbody tr').count()) === 1, 'the page shows the saved scopes');
    assert.deepEqual((await read()).scopes.map((x) => x.name), ['notes:read'], 'a removed scope is gone');

    await page.getByLabel('Name', { exact: true }).fill('Notes service');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await heading(page, 'API Notes service');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete API' }).click();
    await heading(page, 'APIs');
    assert.equal((await f.api(`/admin/v1/resource-servers/${encodeURIComponent(identifier)}`)).status, 404);

    // A built-in API keeps its scope names: only descriptions and mappings are editable, and it has no delete.
    await page.getByRole('link', { name: 'Gatehouse administration API' }).click();
    await heading(page, 'API Gatehouse administration API');
    assert.equal(await page.getByLabel('Scope name', { exact: true }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete API' }).count(), 0);
    await context.close();
  });

  test('identity providers: add from a preset and as any OpenID Connect or OAuth 2.0 provider, the redirect URI to register, edit, disable and enable, delete', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'Identity providers');
    const read = async (slug: string) => f.api(`/admin/v1/identity-providers/${slug}`);

    // The GitLab preset for a self-managed GitLab: the issuer is the one field it needs besides the client.
    await page.getByLabel('Provider', { exact: true }).selectOption('gitlab');
    await page.getByLabel('Issuer', { exact: true }).fill(upstream.issuer);
    await page.getByLabel('Client id', { exact: true }).fill('gitlab-client');
    await page.getByLabel('Client secret variable', { exact: true }).fill('GITLAB_CLIENT_SECRET');
    await page.getByRole('button', { name: 'Add identity provider' }).dblclick();
    await heading(page, 'Identity provider GitLab');
    const gitlab = (await (await read('gitlab')).json()) as { preset: string; token_endpoint: string; redirect_uri: string };
    assert.match(gitlab.redirect_uri, /\/federation\/gitlab\/callback$/);
    assert.equal(await page.locator('main [data-redirect-uri]').textContent(), gitlab.redirect_uri, 'the redirect URI to register is shown');
    assert.deepEqual([gitlab.preset, gitlab.token_endpoint], ['gitlab', `${upstream.issuer}/token`], 'the endpoints come from discovery');
    const all = (await (await f.api('/admin/v1/identity-providers?limit=100')).json()) as { data: { slug: string }[] };
    assert.equal(all.data.filter((p) => p.slug === 'gitlab').length, 1, 'a double click adds one provider');

    // Any OpenID Connect provider.
    await nav(page, 'Identity providers');
    await page.getByLabel('Provider', { exact: true }).selectOption('oidc');
    await page.getByLabel('Display name', { exact: true }).fill('Partner login');
    await page.getByLabel('Slug', { exact: true }).fill('partner');
    await page.getByLabel('Issuer', { exact: true }).fill(upstream.issuer);
    await page.getByLabel('Client id', { exact: true }).fill('partner-client');
    await page.getByLabel('Client secret variable', { exact: true }).fill('PARTNER_SECRET');
    await page.getByLabel('E-mail domains', { exact: true }).fill('partner.example');
    await page.getByRole('button', { name: 'Add identity provider' }).click();
    await heading(page, 'Identity provider Partner login');
    assert.match((await page.locator('main [data-redirect-uri]').textContent()) ?? '', /\/federation\/partner\/callback$/);

    // Edit: a rename and a second domain (the whole document goes back with PUT and If-Match).
    await page.getByLabel('Display name', { exact: true }).fill('Partner SSO');
    await page.getByLabel('E-mail domains', { exact: true }).fill('partner.example\npartner.test');
    await page.getByLabel('Create a local user on a first sign-in').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await heading(page, 'Identity provider Partner SSO');
    const edited = (await (await read('partner')).json()) as { name: string; domains: string[]; provision: boolean; client_id: string };
    assert.deepEqual([edited.name, edited.domains, edited.provision, edited.client_id], ['Partner SSO', ['partner.example', 'partner.test'], true, 'partner-client']);
    await check(page, 'identity-provider-edited');

    // Disable, enable.
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Disable identity provider' }).click();
    await page.getByText('This provider is disabled.').waitFor();
    assert.equal(((await (await read('partner')).json()) as { enabled: boolean }).enabled, false);
    await page.getByRole('button', { name: 'Enable identity provider' }).click();
    await page.getByRole('button', { name: 'Disable identity provider' }).waitFor();
    const enabled = (await (await read('partner')).json()) as { enabled: boolean; domains: string[] };
    assert.deepEqual([enabled.enabled, enabled.domains], [true, ['partner.example', 'partner.test']], 'enabling changes nothing else');

    // Delete.
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete identity provider' }).click();
    await heading(page, 'Identity providers');
    assert.equal((await read('partner')).status, 404);

    // A plain OAuth 2.0 provider: its endpoints and which user-info member fills each claim.
    await page.getByLabel('Provider', { exact: true }).selectOption('oauth2');
    await page.getByLabel('Display name', { exact: true }).fill('Forge');
    await page.getByLabel('Authorization endpoint', { exact: true }).fill(`${upstream.issuer}/auth`);
    await page.getByLabel('Token endpoint', { exact: true }).fill(`${upstream.issuer}/token`);
    await page.getByLabel('User-info endpoint', { exact: true }).fill(`${upstream.issuer}/me`);
    await page.getByLabel('Claim mappings', { exact: true }).fill('sub=id\npreferred_username=login');
    await page.getByLabel('Scopes', { exact: true }).fill('read:user');
    await page.getByLabel('Client id', { exact: true }).fill('forge-client');
    await page.getByLabel('Client secret variable', { exact: true }).fill('FORGE_SECRET');
    await check(page, 'identity-providers-add-oauth2');
    await page.getByRole('button', { name: 'Add identity provider' }).click();
    await heading(page, 'Identity provider Forge');
    const forge = (await (await read('forge')).json()) as { kind: string; claims: Record<string, string>; userinfo_endpoint: string };
    assert.deepEqual([forge.kind, forge.claims, forge.userinfo_endpoint], ['oauth2', { sub: 'id', preferred_username: 'login' }, `${upstream.issuer}/me`]);

    // A broken document is said in words: an OAuth 2.0 provider without a subject mapping.
    await nav(page, 'Identity providers');
    await page.getByLabel('Provider', { exact: true }).selectOption('oauth2');
    await page.getByLabel('Display name', { exact: true }).fill('Broken');
    await page.getByLabel('Authorization endpoint', { exact: true }).fill(`${upstream.issuer}/auth`);
    await page.getByLabel('Token endpoint', { exact: true }).fill(`${upstream.issuer}/token`);
    await page.getByLabel('User-info endpoint', { exact: true }).fill(`${upstream.issuer}/me`);
    await page.getByLabel('Claim mappings', { exact: true }).fill('name=name');
    await page.getByLabel('Scopes', { exact: true }).fill('read:user');
    await page.getByLabel('Client id', { exact: true }).fill('x');
    await page.getByLabel('Client secret variable', { exact: true }).fill('X_SECRET');
    await page.getByRole('button', { name: 'Add identity provider' }).click();
    await page.getByRole('alert').getByText('claims').waitFor();
    await context.close();
  });

  test('users: a user\'s grants and consents are listed and revoked from the console', async () => {
    const g = await userWithGrant(f);
    await consentsRepository(f.t.core.db, f.t.core.clock).grant(g.user.id, g.client.client.id, ['openid', 'orders:read']);
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    await page.goto(`${f.t.url}/console/users/${g.user.id}`);
    await heading(page, `User ${g.user.username}`);
    await page.getByRole('table', { name: 'Grants' }).getByText(g.client.client.id).waitFor();
    await page.getByRole('table', { name: 'Consents' }).getByText('openid orders:read').waitFor();
    await check(page, 'user-with-grants');
    await page.getByRole('button', { name: /^Revoke grant / }).click();
    await page.getByRole('button', { name: /^Revoke grant / }).waitFor({ state: 'detached' });
    assert.equal(((await (await f.api(`/admin/v1/grants?user_id=${g.user.id}`)).json()) as { data: unknown[] }).data.length, 0, 'the grant is revoked');
    await page.getByRole('button', { name: /^Revoke consent / }).click();
    await page.getByRole('button', { name: /^Revoke consent / }).waitFor({ state: 'detached' });
    assert.equal(((await (await f.api(`/admin/v1/consents?user_id=${g.user.id}`)).json()) as { data: unknown[] }).data.length, 0, 'the consent is revoked');
    const trail = page.getByRole('table', { name: `The latest events about ${g.user.username}` });
    await trail.getByText('admin.grant.revoked').waitFor();
    await context.close();
  });

  test('overview: counts, the latest sign-ins and failed sign-ins, and the signing-key changes due', async () => {
    // A failed sign-in of someone at /account.
    const victim = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await otherPage.goto(`${f.t.url}/account`);
    await otherPage.getByLabel('Username', { exact: true }).fill(victim.username);
    await otherPage.getByLabel('Password', { exact: true }).fill('not the password at all');
    await otherPage.getByLabel('Password', { exact: true }).press('Enter');
    await otherPage.waitForLoadState('load');
    await other.close();
    const rotation = await f.api('/admin/v1/signing-keys/rotations', createBody({}, crypto.randomUUID()));
    assert.equal(rotation.status, 201);
    const rotated = ((await rotation.json()) as { rotated: { kid: string }[] }).rotated;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    const counts = page.getByRole('list', { name: 'Counts' });
    const users = ((await (await f.api('/admin/v1/users?limit=100')).json()) as { data: unknown[] }).data.length;
    await counts.getByRole('link', { name: `${users} users` }).waitFor();
    await counts.getByRole('link', { name: /^\d+ applications$/ }).waitFor();
    await counts.getByRole('link', { name: /^\d+ APIs$/ }).waitFor();
    await page.getByRole('table', { name: 'The last five successful sign-ins' }).getByText(writer.id).first().waitFor();
    await page.getByRole('table', { name: 'The last five failed sign-ins' }).getByText(victim.id).waitFor();
    const due = page.getByRole('list', { name: 'Key changes due' });
    for (const { kid } of rotated) await due.getByText(`${kid} `, { exact: false }).first().waitFor();
    assert.match((await due.textContent()) ?? '', /starts signing/);
    await check(page, 'overview-busy');
    await context.close();
  });

  test('admin:write needs a second factor: a write operator signed in with a password alone is read-only, and steps up with TOTP', async () => {
    const u = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    await f.cli('users', 'grant-admin', u.username);
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, u);
    await heading(page, 'Overview');
    assert.equal(await page.getByText('Read-only').count(), 1);
    await nav(page, 'Users');
    assert.equal(await page.getByRole('button', { name: 'Create user' }).count(), 0, 'no change control without the second factor');
    await check(page, 'users-before-step-up');
    // The operator sets up TOTP (on /account, here directly), then asks for write access: the TOTP page, back with admin:write.
    const { secret } = await enrollTotp(f.t, u);
    await page.getByRole('button', { name: 'Use a second factor to make changes' }).click();
    clock.advance(30_000);
    await context.clock.setSystemTime(clock.now());
    const code = page.getByLabel('Code from your authenticator app', { exact: true });
    await code.fill(totpAt(secret, clock.now()));
    await code.press('Enter');
    await heading(page, 'Users');
    assert.equal(await page.getByText('Can make changes').count(), 1);
    await page.getByRole('button', { name: 'Create user' }).waitFor();
    await context.close();
  });

  test('a read-only operator cannot change anything: no change buttons on any page, and the API refuses their token', async () => {
    const context = await browser.newContext();
    const page = await signIn(context, reader);
    await heading(page, 'Overview');
    assert.equal(await page.getByText('Read-only').count(), 1);
    for (const [label, h1] of [['Users', 'Users'], ['Applications', 'Applications'], ['APIs', 'APIs'], ['Identity providers', 'Identity providers'], ['Signing keys', 'Signing keys']] as const) {
      await nav(page, label, h1);
      assert.equal(await page.locator('main form button[type=submit]').filter({ hasNotText: /^(Search|Filter)$/ }).count(), 0, `${label}: no change button`);
    }
    await page.goto(`${f.t.url}/console/users/${writer.id}`);
    await heading(page, `User ${writer.username}`);
    assert.equal(await page.locator('main button').count(), 0, 'no button on a user page');
    for (const [path, h1] of [['/console/identity-providers/corp-sso', 'Identity provider Corp SSO'], [`/console/apis/${encodeURIComponent(`${f.t.config.ISSUER}/admin`)}`, 'API Gatehouse administration API']] as [string, string][]) {
      await page.goto(`${f.t.url}${path}`);
      await heading(page, h1);
      assert.equal(await page.locator('main button').count(), 0, `no button at ${path}`);
    }
    // The same token the page holds, used directly: the API refuses the change.
    const status = await page.evaluate<number>(`Promise.all([import('/console/assets/auth.js'), import('/console/assets/dpop.js')]).then(async ([auth, dpop]) => {
      const url = location.origin + '/admin/v1/users';
      const proof = await dpop.dpopProof('POST', url, auth.accessToken());
      const r = await fetch(url, { method: 'POST', headers: { authorization: 'DPoP ' + auth.accessToken(), dpop: proof, 'content-type': 'application/json', 'idempotency-key': 'ro-1' }, body: JSON.stringify({ username: 'nope', password: 'long enough pw' }) });
      return r.status;
    })`);
    assert.equal(status, 403);
    await context.close();
  });

  test('the console\'s token is DPoP-bound to a key made in the page: every API call carries a proof, and the token alone (as Bearer) is refused', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const seen: { authorization: string; dpop: string | undefined }[] = [];
    context.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/admin/v1/')) seen.push({ authorization: request.headers().authorization ?? '', dpop: request.headers().dpop });
    });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    assert.ok(seen.length > 0);
    for (const call of seen) {
      assert.match(call.authorization, /^DPoP /, 'the DPoP scheme');
      assert.ok(call.dpop, 'a proof with every call');
    }
    const header = JSON.parse(Buffer.from(seen[0]!.dpop!.split('.')[0]!, 'base64url').toString()) as { alg: string; jwk: Record<string, string> };
    assert.equal(header.alg, 'ES256');
    assert.deepEqual(Object.keys(header.jwk).sort(), ['crv', 'kty', 'x', 'y'], 'only the public key travels');
    const token = seen[0]!.authorization.slice('DPoP '.length);
    const asBearer = await fetch(`${f.t.url}/admin/v1/users?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(asBearer.status, 401, 'a stolen console token is useless without the key');
    const extractable = await page.evaluate<boolean>(`crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']).then((pair) => pair.privateKey.extractable)`);
    assert.equal(extractable, false);
    await context.close();
  });

  test('applications: disable and enable a client from the console; a built-in client shows no change controls', async () => {
    const made = await f.api('/admin/v1/clients', createBody({ client_name: 'Switchable', grant_types: ['client_credentials'], scope: 'orders:read' }, crypto.randomUUID()));
    const client = (await made.json()) as { client_id: string; client_secret: string };
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    await page.goto(`${f.t.url}/console/clients/${client.client_id}`);
    await heading(page, 'Application Switchable');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Disable application' }).click();
    await page.getByText('Disabled.', { exact: true }).waitFor();
    await page.getByText('Sign-ins and token requests for it are refused.').waitFor();
    assert.equal((await f.tokenFor(client.client_id, client.client_secret, 'orders:read')).status, 401);
    await check(page, 'application-disabled');
    // Past the disabling's revocation window (CLIENT_CACHE_TTL), on both clocks.
    clock.advance(6_000);
    await context.clock.setSystemTime(clock.now());
    await page.getByRole('button', { name: 'Enable application' }).click();
    await page.getByText('Enabled.', { exact: true }).waitFor();
    assert.equal((await f.tokenFor(client.client_id, client.client_secret, 'orders:read')).status, 200);

    await page.goto(`${f.t.url}/console/clients/gatehouse-console`);
    await heading(page, 'Application Gatehouse admin console');
    await page.getByText('Built into Gatehouse').waitFor();
    assert.equal(await page.locator('main form button[type=submit]').count(), 0, 'no change control on a built-in client');
    await context.close();
  });

  test('users: search by attribute (NAME:VALUE); a malformed search is said in words', async () => {
    const blue = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    await f.cli('users', 'set-attribute', blue.username, 'squad', 'falcons');
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'Users');
    await page.getByLabel('Attribute', { exact: true }).fill('squad:falcons');
    await page.getByLabel('Attribute', { exact: true }).press('Enter');
    await page.getByRole('link', { name: blue.username }).waitFor();
    await page.getByText('1 users shown.').waitFor();
    assert.match(page.url(), /attribute=squad%3Afalcons/);
    await check(page, 'users-attribute-search');
    await page.getByLabel('Attribute', { exact: true }).fill('squad');
    await page.getByLabel('Attribute', { exact: true }).press('Enter');
    await page.getByRole('alert').getByText('must be NAME:VALUE').waitFor();
    await context.close();
  });

  test('audit log: filter by actor; new events are followed into a live region, and following pauses', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    // Something the operator does through the console, to find by actor.
    const target = await f.api('/admin/v1/clients', createBody({ client_name: 'Renamed by operator', grant_types: ['client_credentials'], scope: 'orders:read' }, crypto.randomUUID()));
    const targetId = ((await target.json()) as { client_id: string }).client_id;
    await page.goto(`${f.t.url}/console/clients/${targetId}`);
    await heading(page, 'Application Renamed by operator');
    await page.getByLabel('Name', { exact: true }).fill('Renamed in console');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await heading(page, 'Application Renamed in console');

    await nav(page, 'Audit log');
    await page.getByLabel('Actor (user id, or the CLI user)').fill(writer.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText(/\d+ events shown\./).waitFor();
    assert.match(page.url(), new RegExp(`actor=${writer.id}`));
    // (the manual clock stands still, so the sign-in and the rename share a time: look for the rename among them)
    await until(async () => (await page.locator('tbody tr').allTextContents()).some((row) => row.includes('admin.client.updated') && row.includes(targetId)), 'the operator\'s rename, found by actor');
    for (const row of await page.locator('tbody tr').allTextContents()) assert.ok(row.includes(writer.id), `only the operator's events: ${row}`);

    await nav(page, 'Audit log');
    await page.getByText('Following new events.').waitFor();
    const rows = await page.locator('tbody tr').count();
    const tick = async () => {
      clock.advance(5_000);
      await context.clock.runFor(5_000);
    };
    await f.api('/admin/v1/clients', createBody({ client_name: 'Followed', grant_types: ['client_credentials'], scope: 'orders:read' }, crypto.randomUUID()));
    await tick();
    await page.getByRole('status').getByText('1 new event.').waitFor();
    assert.equal(await page.locator('tbody tr').count(), rows + 1);
    assert.match((await page.locator('tbody tr').first().textContent()) ?? '', /admin\.client\.created/);
    await check(page, 'audit-log-following');

    await page.getByRole('button', { name: 'Pause following' }).click();
    assert.equal(await page.getByRole('button', { name: 'Resume following' }).getAttribute('aria-pressed'), 'true');
    await f.api('/admin/v1/clients', createBody({ client_name: 'Not yet', grant_types: ['client_credentials'], scope: 'orders:read' }, crypto.randomUUID()));
    await tick();
    assert.equal(await page.locator('tbody tr').count(), rows + 1, 'nothing added while paused');
    await page.getByRole('button', { name: 'Resume following' }).click();
    await tick();
    await page.getByRole('status').getByText('1 new event.').waitFor();
    await until(async () => (await page.locator('tbody tr').count()) === rows + 2, 'the held-back event arrives on resume');
    await context.close();
  });

  test('a normal user cannot open the console: no token, a page that says why, nothing of the API shown', async () => {
    const user = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, user);
    await heading(page, 'No access to the console');
    await page.getByRole('alert').getByText('not an operator').waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Console' }).count(), 0);
    await accessible(page, 'no access');
    await fitsAndShoot(page, OUTPUT, 'no-access-390');
    await context.close();
  });
});
