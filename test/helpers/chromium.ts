// Debian's chromium through playwright-core, launched the one way every browser test needs: headless, without
// the sandbox (CI runs as root), without background traffic, on a fresh profile that is removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

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
