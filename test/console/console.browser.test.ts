// The admin console (/console, docs/console.md) in a real browser (Debian's chromium through playwright-core):
// operators sign in through Gatehouse's own pages (TOTP for admin:write), then every task runs against the
// public admin API. Each console page passes axe-core with no serious or critical violation, in light and
// dark, and is kept as a screenshot at 390 px and 1280 px in test-output/console/.
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

// axe-core is a devDependency; required (not imported) so that the source text of its browser bundle is read.
const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const OUTPUT = join(process.cwd(), 'test-output', 'console');

describe('the admin console in a real browser', () => {
  const clock = manualClock(Date.now() - 10 * 60_000);
  let f: AdminFixture;
  let browser: Browser;
  let writer: { username: string; id: string; secret: string };
  let reader: { username: string; id: string };
  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    f = await adminFixture({ clock });
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

  /** The page at both widths and both colour schemes: axe passes, no sideways scrolling, a screenshot each width. */
  async function check(page: Page, label: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await accessible(page, `${label} ${scheme} ${width}px`);
        if (scheme === 'light') await fitsAndShoot(page, OUTPUT, `${label}-${width}`);
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

  test('APIs: a resource server’s settings change from the console', async () => {
    const created = await f.api('/admin/v1/resource-servers', createBody({ identifier: 'https://notes.example/api', name: 'Notes', scopes: [{ name: 'notes:read', description: 'Read notes' }] }, crypto.randomUUID()));
    assert.equal(created.status, 201, await created.clone().text());
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, writer, writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'APIs');
    await page.getByRole('link', { name: 'Notes' }).click();
    await heading(page, 'API Notes');
    await page.getByLabel('Name', { exact: true }).fill('Notes service');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await heading(page, 'API Notes service');
    await context.close();
  });

  test('a read-only operator cannot change anything: no change buttons on any page, and the API refuses their token', async () => {
    const context = await browser.newContext();
    const page = await signIn(context, reader);
    await heading(page, 'Overview');
    assert.equal(await page.getByText('Read-only').count(), 1);
    for (const [label, h1] of [['Users', 'Users'], ['Applications', 'Applications'], ['Signing keys', 'Signing keys']] as const) {
      await nav(page, label, h1);
      assert.equal(await page.locator('main form button[type=submit]').filter({ hasNotText: /^(Search|Filter)$/ }).count(), 0, `${label}: no change button`);
    }
    await page.goto(`${f.t.url}/console/users/${writer.id}`);
    await heading(page, `User ${writer.username}`);
    assert.equal(await page.locator('main button').count(), 0, 'no button on a user page');
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
