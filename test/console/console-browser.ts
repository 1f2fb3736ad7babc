// What the Chromium tests of the admin console share (docs/console.md): a Gatehouse with a write operator
// (TOTP) and a read-only one, a real OpenID provider on loopback for identity providers, Chromium, and the
// steps every test takes: sign in through Gatehouse's own pages, wait for a page's heading, and check a page
// (axe-core with no serious or critical violation, no sideways scrolling, a screenshot) at 390 and 1280 px in
// light and dark. Screenshots go to test-output/console/ (git-ignored). Not a test file.
import { after, before } from 'node:test';
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
import { STRICT_OUTBOUND } from '../../src/http/outbound/outbound-policy.js';
import { startOidcUpstream, type OidcUpstream } from '../helpers/oidc-upstream.js';

// axe-core is a devDependency; required (not imported) so that the source text of its browser bundle is read.
const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
export const OUTPUT = join(process.cwd(), 'test-output', 'console');

export interface ConsoleWorld {
  clock: ReturnType<typeof manualClock>;
  f: AdminFixture;
  browser: Browser;
  writer: { username: string; id: string; secret: string };
  reader: { username: string; id: string };
  /** A real OpenID provider on loopback: identity providers are registered against its discovery document. */
  upstream: OidcUpstream;
}

/**
 * Registers the before/after hooks of a describe block and returns the world they fill (read its members
 * inside tests only) with the shared steps.
 */
export function consoleWorld() {
  const world = { clock: manualClock(Date.now() - 10 * 60_000) } as ConsoleWorld;
  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    const f = await adminFixture({ clock: world.clock, outbound: { ...STRICT_OUTBOUND, allowedClasses: ['loopback'], allowHttp: true } });
    world.f = f;
    world.upstream = await startOidcUpstream({ redirectUris: [] });
    const provider = await f.api(
      '/admin/v1/identity-providers',
      createBody(
        {
          slug: 'corp-sso',
          name: 'Corp SSO',
          issuer: world.upstream.issuer,
          client_id: 'gatehouse',
          client_secret_env: 'CORP_SSO_SECRET',
          domains: ['corp.example'],
        },
        crypto.randomUUID(),
      ),
    );
    assert.equal(provider.status, 201, await provider.clone().text());
    const w = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(f.t, w);
    await f.cli('users', 'grant-admin', w.username);
    world.writer = { username: w.username, id: w.id, secret };
    const r = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
    await f.cli('users', 'grant-admin', r.username, '--read-only');
    world.reader = { username: r.username, id: r.id };
    world.browser = await launchBrowser();
  });
  after(async () => {
    await world.browser?.close();
    await world.upstream?.close();
    await world.f?.t.close();
  });
  const { clock } = world;

  /** Opens /console, signs in on Gatehouse's pages (the TOTP page when the account has one), back at the overview. */
  async function signIn(context: BrowserContext, user: { username: string }, totpSecret?: string): Promise<Page> {
    // The server runs on a manual clock and DPoP proofs carry the browser's time (iat): the browser's clock is
    // the server's, paused, and moves only with it (sync()).
    await context.clock.install({ time: clock.now() });
    const page = await context.newPage();
    // (pauseAt resolves only once the context has a page; the installed clock ran meanwhile)
    await context.clock.pauseAt((await page.evaluate<number>('Date.now()')) + 2_000);
    await page.goto(`${world.f.t.url}/console/`);
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
    page
      .getByRole('heading', { level: 1, name })
      .waitFor({ timeout: 10_000 })
      .catch(async (error: unknown) => {
        console.log(
          `no heading "${name}" at ${page.url()}:`,
          await page
            .locator('body')
            .textContent()
            .catch(() => ''),
        );
        throw error;
      });
  const nav = async (page: Page, label: string, h1 = label) => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
    await heading(page, h1);
  };

  /** axe-core in the page (evaluated over the DevTools protocol, so the console's CSP stays as it is). */
  async function accessible(page: Page, label: string): Promise<void> {
    await page.evaluate(axeSource);
    const result = await withRunningClock(page, () =>
      page.evaluate<{ id: string; impact: string; help: string; nodes: { target: string[] }[] }[]>(
        "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))",
      ),
    );
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

  return { world, signIn, until, heading, nav, accessible, check };
}
