// Debian's chromium through playwright-core, launched the one way every browser test needs: headless, without
// the sandbox (CI runs as root), without background traffic, on a fresh profile that is removed afterwards.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ChromiumProfile {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** A persistent context on its own fresh --user-data-dir. */
export async function launchChromium(): Promise<ChromiumProfile> {
  const profileDir = mkdtempSync(join(tmpdir(), 'gatehouse-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

/** A plain browser, for tests that need contexts with their own options (e.g. JavaScript off). */
export const launchBrowser = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });

/** Asserts the page does not scroll sideways (the 390-px rule) and keeps a full-page screenshot in `outputDir`. */
export async function fitsAndShoot(page: Page, outputDir: string, label: string): Promise<void> {
  await page.waitForLoadState('load');
  // A string expression: it runs in the page, whose DOM types this Node project does not compile against.
  const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  );
  assert.ok(scrollWidth <= innerWidth, `${label}: the page is ${scrollWidth} px wide in a ${innerWidth} px window (horizontal scrolling)`);
  await page.screenshot({ path: join(outputDir, `${label}.png`), fullPage: true });
}

/** Fills a field found by its label (every input has one) and submits with Enter, as a keyboard user would. */
export async function typeInto(page: Page, label: string, value: string, submit = false): Promise<void> {
  const field = page.getByLabel(label, { exact: true });
  await field.focus();
  await field.fill(value);
  if (submit) await field.press('Enter');
}

/** The relying party's redirect target: a page that says the browser is back at the client. */
export async function startClientPage(): Promise<{ server: Server; port: number; redirectUri: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Test client</title><h1>Back at the client</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port, redirectUri: `http://127.0.0.1:${address.port}/cb` };
}
