// Every page of the admin console (docs/console.md) in a real browser (Debian's chromium through playwright-core)
// passes axe-core with no serious or critical violation at 390 and 1280 px, in light and dark, without sideways
// scrolling, and is kept as a screenshot of each in test-output/console/ (git-ignored): NAME-WIDTH[-dark].png.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createBody } from '../admin/fixture.js';
import { consoleWorld } from './console-browser.js';

// Each test keeps the runner's 3-minute limit; the suite as a whole may take longer on a loaded machine.
describe('every admin console page in a real browser', { timeout: 15 * 60_000 }, () => {
  const { world, signIn, heading, nav, check } = consoleWorld();

  test('an operator signs in with TOTP and gets admin:write; every console page passes axe at 390 and 1280 px, light and dark', async () => {
    const context = await world.browser.newContext();
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    assert.equal(await page.getByText('Can make changes').count(), 1);
    await check(page, 'overview');
    await nav(page, 'Users');
    await check(page, 'users');
    await page.getByRole('link', { name: world.writer.username, exact: true }).click();
    await heading(page, `User ${world.writer.username}`);
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

  test('applications: disable and enable a client from the console; a built-in client shows no change controls', async () => {
    const made = await world.f.api(
      '/admin/v1/clients',
      createBody({ client_name: 'Switchable', grant_types: ['client_credentials'], scope: 'orders:read' }, crypto.randomUUID()),
    );
    const client = (await made.json()) as { client_id: string; client_secret: string };
    const context = await world.browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    await page.goto(`${world.f.t.url}/console/clients/${client.client_id}`);
    await heading(page, 'Application Switchable');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Disable application' }).click();
    await page.getByText('Disabled.', { exact: true }).waitFor();
    await page.getByText('Sign-ins and token requests for it are refused.').waitFor();
    assert.equal((await world.f.tokenFor(client.client_id, client.client_secret, 'orders:read')).status, 401);
    await check(page, 'application-disabled');
    // Past the disabling's revocation window (CLIENT_CACHE_TTL), on both clocks.
    world.clock.advance(6_000);
    await context.clock.setSystemTime(world.clock.now());
    await page.getByRole('button', { name: 'Enable application' }).click();
    await page.getByText('Enabled.', { exact: true }).waitFor();
    assert.equal((await world.f.tokenFor(client.client_id, client.client_secret, 'orders:read')).status, 200);

    await page.goto(`${world.f.t.url}/console/clients/gatehouse-console`);
    await heading(page, 'Application Gatehouse admin console');
    await page.getByText('Built into Gatehouse').waitFor();
    assert.equal(await page.locator('main form button[type=submit]').count(), 0, 'no change control on a built-in client');
    await context.close();
  });
});
