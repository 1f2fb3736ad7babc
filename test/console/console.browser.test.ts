// The admin console (/console, docs/console.md) in a real browser (Debian's chromium through playwright-core):
// who gets in and with which access (TOTP step-up to admin:write, read-only operators, normal users, the DPoP
// binding), the API's conventions made visible (the 412 path), the overview, the keyboard, user search by
// attribute and the audit log. The tasks of the other pages: pages.browser.test.ts; axe-core on every page:
// accessibility.browser.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fitsAndShoot } from '../helpers/chromium.js';
import { SIGN_IN, createUser } from '../helpers/users.js';
import { totpAt } from '../helpers/totp.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import { createBody } from '../admin/fixture.js';
import { consoleWorld, OUTPUT } from './console-browser.js';

// Each test keeps the runner's 3-minute limit; the suite as a whole may take longer on a loaded machine.
describe('the admin console in a real browser', { timeout: 15 * 60_000 }, () => {
  const { world, signIn, until, heading, nav, accessible, check } = consoleWorld();

  test('a concurrent edit gets the 412 path: "changed by someone else since you opened it" and a reload shows the other change', async () => {
    const context = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    const target = await createUser(world.f.t.core.db, world.f.t.core.clock, SIGN_IN);
    await page.goto(`${world.f.t.url}/console/users/${target.id}`);
    await heading(page, `User ${target.username}`);
    // Someone else changes the user after the page was opened.
    const read = await world.f.api(`/admin/v1/users/${target.id}`);
    const other = await world.f.api(`/admin/v1/users/${target.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': read.headers.get('etag')! },
      body: JSON.stringify({ name: 'Changed elsewhere' }),
    });
    assert.equal(other.status, 200);
    await page.getByLabel('Given name', { exact: true }).fill('Mine');
    await page.getByRole('button', { name: 'Save profile' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('changed by someone else since you opened it').waitFor();
    await fitsAndShoot(page, OUTPUT, 'stale-edit-1280');
    assert.equal(
      ((await (await world.f.api(`/admin/v1/users/${target.id}`)).json()) as { given_name: string | null }).given_name,
      null,
      'the stale write changed nothing',
    );
    await alert.getByRole('button', { name: 'Reload' }).click();
    await until(async () => (await page.getByLabel('Name', { exact: true }).inputValue()) === 'Changed elsewhere', 'the reload shows the other change');
    await context.close();
  });

  test('overview: counts, the latest sign-ins and failed sign-ins, and the signing-key changes due', async () => {
    // A failed sign-in of someone at /account.
    const victim = await createUser(world.f.t.core.db, world.f.t.core.clock, SIGN_IN);
    const other = await world.browser.newContext();
    const otherPage = await other.newPage();
    await otherPage.goto(`${world.f.t.url}/account`);
    await otherPage.getByLabel('Username', { exact: true }).fill(victim.username);
    await otherPage.getByLabel('Password', { exact: true }).fill('not the password at all');
    await otherPage.getByLabel('Password', { exact: true }).press('Enter');
    await otherPage.waitForLoadState('load');
    await other.close();
    const rotation = await world.f.api('/admin/v1/signing-keys/rotations', createBody({}, crypto.randomUUID()));
    assert.equal(rotation.status, 201);
    const rotated = ((await rotation.json()) as { rotated: { kid: string }[] }).rotated;

    const context = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    const counts = page.getByRole('list', { name: 'Counts' });
    const users = ((await (await world.f.api('/admin/v1/users?limit=100')).json()) as { data: unknown[] }).data.length;
    await counts.getByRole('link', { name: `${users} users` }).waitFor();
    await counts.getByRole('link', { name: /^\d+ applications$/ }).waitFor();
    await counts.getByRole('link', { name: /^\d+ APIs$/ }).waitFor();
    await page.getByRole('table', { name: 'The last five successful sign-ins' }).getByText(world.writer.id).first().waitFor();
    await page.getByRole('table', { name: 'The last five failed sign-ins' }).getByText(victim.id).waitFor();
    const due = page.getByRole('list', { name: 'Key changes due' });
    for (const { kid } of rotated) await due.getByText(`${kid} `, { exact: false }).first().waitFor();
    assert.match((await due.textContent()) ?? '', /starts signing/);
    await check(page, 'overview-busy');
    await context.close();
  });

  test('admin:write needs a second factor: a write operator signed in with a password alone is read-only, and steps up with TOTP', async () => {
    const u = await createUser(world.f.t.core.db, world.f.t.core.clock, SIGN_IN);
    await world.f.cli('users', 'grant-admin', u.username);
    const context = await world.browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, u);
    await heading(page, 'Overview');
    assert.equal(await page.getByText('Read-only').count(), 1);
    await nav(page, 'Users');
    assert.equal(await page.getByRole('button', { name: 'Create user' }).count(), 0, 'no change control without the second factor');
    await check(page, 'users-before-step-up');
    // The operator sets up TOTP (on /account, here directly), then asks for write access: the TOTP page, back with admin:write.
    const { secret } = await enrollTotp(world.f.t, u);
    await page.getByRole('button', { name: 'Use a second factor to make changes' }).click();
    world.clock.advance(30_000);
    await context.clock.setSystemTime(world.clock.now());
    const code = page.getByLabel('Code from your authenticator app', { exact: true });
    await code.fill(totpAt(secret, world.clock.now()));
    await code.press('Enter');
    await heading(page, 'Users');
    assert.equal(await page.getByText('Can make changes').count(), 1);
    await page.getByRole('button', { name: 'Create user' }).waitFor();
    await context.close();
  });

  test('keyboard only: the skip link, the navigation, a form filled and sent with Enter, and "Add a scope" moves the focus', async () => {
    const context = await world.browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    const active = (expression: string) => page.evaluate<string>(`(() => { const e = document.activeElement; return String(${expression}); })()`);
    /** Presses Tab (or Shift+Tab) until the focused element passes `test` (an expression over `e`, the active element). */
    const tabTo = async (what: string, test: string, key = 'Tab') => {
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press(key);
        if ((await active(test)) === 'true') return;
      }
      assert.fail(`${key} never reached ${what}`);
    };
    /** The focus lands where `expected` says (a key's effect can take a task or two: polled). */
    const focusIs = (expression: string, expected: string, what: string) =>
      until(async () => (await active(expression)) === expected, `${what} (focus: ${expression} should be ${expected})`);
    await focusIs('e.tagName + " " + e.textContent', 'H1 Overview', 'each page puts the focus on its heading');
    // Backwards from the heading: through the navigation and the header to the skip link, the page's first stop.
    await tabTo('the skip link', "e.textContent === 'Skip to content'", 'Shift+Tab');
    await focusIs('e === document.querySelector("a[href], button, input, select, textarea")', 'true', 'the skip link comes first');
    await page.keyboard.press('Enter');
    await focusIs('e.id', 'main', 'the skip link moves the focus to the content');

    await tabTo('the APIs link', "e.tagName === 'A' && e.textContent === 'APIs'");
    await page.keyboard.press('Enter');
    await heading(page, 'APIs');
    await focusIs('e.tagName + " " + e.textContent', 'H1 APIs', 'the new page puts the focus on its heading');
    await tabTo('the identifier field', "e.name === 'identifier'");
    await page.keyboard.type('https://keyboard.example/api');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Keyboard API');
    await page.keyboard.press('Tab');
    await focusIs('e.name', 'scope_name_1', 'Tab goes from the name to the first scope');
    await page.keyboard.type('keys:read');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Read with the keyboard');
    await tabTo('Add a scope', "e.textContent === 'Add a scope'");
    await page.keyboard.press('Enter');
    await focusIs('e.name', 'scope_name_2', "the new scope's first field has the focus");
    await page.keyboard.type('keys:write');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Write with the keyboard');
    await page.keyboard.press('Enter');
    await page.locator('[data-secret]').waitFor();
    const made = (await (await world.f.api(`/admin/v1/resource-servers/${encodeURIComponent('https://keyboard.example/api')}`)).json()) as {
      scopes: { name: string }[];
    };
    assert.deepEqual(
      made.scopes.map((x) => x.name),
      ['keys:read', 'keys:write'],
    );
    await focusIs('e.textContent', 'Keyboard API', "the focus moves to the new API's link");
    await page.keyboard.press('Enter');
    await heading(page, 'API Keyboard API');
    await context.close();
  });

  test('a read-only operator cannot change anything: no change buttons on any page, and the API refuses their token', async () => {
    const context = await world.browser.newContext();
    const page = await signIn(context, world.reader);
    await heading(page, 'Overview');
    assert.equal(await page.getByText('Read-only').count(), 1);
    for (const [label, h1] of [
      ['Users', 'Users'],
      ['Applications', 'Applications'],
      ['APIs', 'APIs'],
      ['Identity providers', 'Identity providers'],
      ['Signing keys', 'Signing keys'],
    ] as const) {
      await nav(page, label, h1);
      assert.equal(
        await page
          .locator('main form button[type=submit]')
          .filter({ hasNotText: /^(Search|Filter)$/ })
          .count(),
        0,
        `${label}: no change button`,
      );
    }
    await page.goto(`${world.f.t.url}/console/users/${world.writer.id}`);
    await heading(page, `User ${world.writer.username}`);
    assert.equal(await page.locator('main button').count(), 0, 'no button on a user page');
    for (const [path, h1] of [
      ['/console/identity-providers/corp-sso', 'Identity provider Corp SSO'],
      [`/console/apis/${encodeURIComponent(`${world.f.t.config.ISSUER}/admin`)}`, 'API Gatehouse administration API'],
    ] as [string, string][]) {
      await page.goto(`${world.f.t.url}${path}`);
      await heading(page, h1);
      assert.equal(await page.locator('main button').count(), 0, `no button at ${path}`);
    }
    // The same token the page holds, used directly: the API refuses the change.
    const status =
      await page.evaluate<number>(`Promise.all([import('/console/assets/auth.js'), import('/console/assets/dpop.js')]).then(async ([auth, dpop]) => {
      const url = location.origin + '/admin/v1/users';
      const proof = await dpop.dpopProof('POST', url, auth.accessToken());
      const r = await fetch(url, { method: 'POST', headers: { authorization: 'DPoP ' + auth.accessToken(), dpop: proof, 'content-type': 'application/json', 'idempotency-key': 'ro-1' }, body: JSON.stringify({ username: 'nope', password: 'long enough pw' }) });
      return r.status;
    })`);
    assert.equal(status, 403);
    await context.close();
  });

  test("the console's token is DPoP-bound to a key made in the page: every API call carries a proof, and the token alone (as Bearer) is refused", async () => {
    const context = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const seen: { authorization: string; dpop: string | undefined }[] = [];
    context.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/admin/v1/'))
        seen.push({ authorization: request.headers().authorization ?? '', dpop: request.headers().dpop });
    });
    const page = await signIn(context, world.writer, world.writer.secret);
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
    const asBearer = await fetch(`${world.f.t.url}/admin/v1/users?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(asBearer.status, 401, 'a stolen console token is useless without the key');
    const extractable = await page.evaluate<boolean>(
      `crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']).then((pair) => pair.privateKey.extractable)`,
    );
    assert.equal(extractable, false);
    await context.close();
  });

  test('a normal user cannot open the console: no token, a page that says why, nothing of the API shown', async () => {
    const user = await createUser(world.f.t.core.db, world.f.t.core.clock, SIGN_IN);
    const context = await world.browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, user);
    await heading(page, 'No access to the console');
    await page.getByRole('alert').getByText('not an operator').waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Console' }).count(), 0);
    await accessible(page, 'no access');
    await fitsAndShoot(page, OUTPUT, 'no-access-390');
    await context.close();
  });
  test('audit log: filter by actor; new events are followed into a live region, and following pauses', async () => {
    const context = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    // Something the operator does through the console, to find by actor.
    const target = await world.f.api(
      '/admin/v1/clients',
      createBody({ client_name: 'Renamed by operator', grant_types: ['client_credentials'], scope: 'orders:read' }, crypto.randomUUID()),
    );
    const targetId = ((await target.json()) as { client_id: string }).client_id;
    await page.goto(`${world.f.t.url}/console/clients/${targetId}`);
    await heading(page, 'Application Renamed by operator');
    await page.getByLabel('Name', { exact: true }).fill('Renamed in console');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await heading(page, 'Application Renamed in console');

    await nav(page, 'Audit log');
    await page.getByLabel('Actor (user id, or the CLI user)').fill(world.writer.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText(/\d+ events? shown\./).waitFor();
    assert.match(page.url(), new RegExp(`actor=${world.writer.id}`));
    // (the manual clock stands still, so the sign-in and the rename share a time: look for the rename among them)
    await until(
      async () => (await page.locator('tbody tr').allTextContents()).some((row) => row.includes('admin.client.updated') && row.includes(targetId)),
      "the operator's rename, found by actor",
    );
    for (const row of await page.locator('tbody tr').allTextContents()) assert.ok(row.includes(world.writer.id), `only the operator's events: ${row}`);

    await nav(page, 'Audit log');
    await page.getByText('Following new events.').waitFor();
    const rows = await page.locator('tbody tr').count();
    const tick = async () => {
      world.clock.advance(5_000);
      await context.clock.runFor(5_000);
    };
    await world.f.api(
      '/admin/v1/clients',
      createBody({ client_name: 'Followed', grant_types: ['client_credentials'], scope: 'orders:read' }, crypto.randomUUID()),
    );
    await tick();
    await page.getByRole('status').getByText('1 new event.').waitFor();
    assert.equal(await page.locator('tbody tr').count(), rows + 1);
    assert.match((await page.locator('tbody tr').first().textContent()) ?? '', /admin\.client\.created/);
    await check(page, 'audit-log-following');

    await page.getByRole('button', { name: 'Pause following' }).click();
    assert.equal(await page.getByRole('button', { name: 'Resume following' }).getAttribute('aria-pressed'), 'true');
    await world.f.api(
      '/admin/v1/clients',
      createBody({ client_name: 'Not yet', grant_types: ['client_credentials'], scope: 'orders:read' }, crypto.randomUUID()),
    );
    await tick();
    assert.equal(await page.locator('tbody tr').count(), rows + 1, 'nothing added while paused');
    await page.getByRole('button', { name: 'Resume following' }).click();
    await tick();
    await page.getByRole('status').getByText('1 new event.').waitFor();
    await until(async () => (await page.locator('tbody tr').count()) === rows + 2, 'the held-back event arrives on resume');
    await context.close();
  });

  test('users: search by attribute (NAME:VALUE); a malformed search is said in words', async () => {
    const blue = await createUser(world.f.t.core.db, world.f.t.core.clock, SIGN_IN);
    await world.f.cli('users', 'set-attribute', blue.username, 'squad', 'falcons');
    const context = await world.browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'Users');
    await page.getByLabel('Attribute', { exact: true }).fill('squad:falcons');
    await page.getByLabel('Attribute', { exact: true }).press('Enter');
    await page.getByRole('link', { name: blue.username }).waitFor();
    await page.getByText('1 user shown.').waitFor();
    assert.match(page.url(), /attribute=squad%3Afalcons/);
    await check(page, 'users-attribute-search');
    await page.getByLabel('Attribute', { exact: true }).fill('squad');
    await page.getByLabel('Attribute', { exact: true }).press('Enter');
    await page.getByRole('alert').getByText('must be NAME:VALUE').waitFor();
    await context.close();
  });
});
