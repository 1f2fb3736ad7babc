// Shared by the self-service tests (not a test file): an app whose mail lands in the development mailbox,
// a way to finish the background work a page started (the job, then the outbox), the newest message to an
// address and its link, form posts from a given client address (TRUST_PROXY 127.0.0.1), and the paired
// timing comparison of the enumeration tests.
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';
import type { DevMailbox } from '../../src/mail/dev-mailbox.js';

export async function selfServiceApp(env: Record<string, string> = {}, options: Omit<TestAppOptions, 'env'> = {}): Promise<TestApp> {
  return startTestApp({ ...options, env: { TRUST_PROXY: '127.0.0.1', SIGNUP: 'open', ...env } });
}

/** Runs the jobs the pages queued, then delivers what they wrote to the outbox. */
export async function settle(t: TestApp): Promise<void> {
  await t.app.core.jobs.drain();
  await t.app.core.outboxWorker.drain();
}

export const mailbox = (t: TestApp) => t.app.core.mail.devMailbox as DevMailbox;
export const mailsTo = (t: TestApp, email: string) =>
  mailbox(t)
    .messages()
    .filter((m) => m.to === email);

/** The link to `path` in the newest message to `email`. */
export function linkIn(t: TestApp, email: string, path: string): string {
  const mail = mailsTo(t, email)[0];
  assert.ok(mail, `a message to ${email}`);
  const link = new RegExp(`https?://\\S+${path.replace('/', '\\/')}\\?\\S+`).exec(mail.text)?.[0];
  assert.ok(link, mail.text);
  return link;
}

let nextAddress = 1;
/** A client address of its own for each caller (TRUST_PROXY), so one test's budgets never reach another's. */
export const freshClientAddress = () => `198.51.100.${(nextAddress++ % 250) + 1}`;

export function postForm(t: TestApp, path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** Headers whose value legitimately differs between any two requests. */
const PER_REQUEST = new Set(['date', 'x-request-id', 'keep-alive', 'connection']);

/** What a caller can compare of a response: status, every header but the per-request ones, and the body with `address` masked. */
export async function observable(response: Response, address: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !PER_REQUEST.has(name)));
  return { status: response.status, headers, body: (await response.text()).split(address).join('ADDRESS') };
}

/**
 * The timing comparison of the enumeration tests, built not to flake: `pairs` rounds, each timing one
 * request for a known and one for an unknown address in random order (so drift and warm-up hit both
 * alike), the background work settled between rounds (it runs after the response; the test measures the
 * response). Two checks on the paired differences (known − unknown):
 *   - a sign test: under "no difference" the share of rounds where the known address was slower is
 *     Binomial(n, ½); outside [25 %, 75 %] has a probability of about 1e-4 at n = 60, so the check does not
 *     flake, while a systematic difference of even a millisecond over ~1 ms of noise moves it far outside;
 *   - the median difference within `boundMs` (generous: it only catches a gross difference).
 * Medians and signs ignore the outliers a loaded machine produces.
 */
export async function pairedTiming(
  rounds: number,
  known: () => Promise<unknown>,
  unknown: () => Promise<unknown>,
  between: () => Promise<void>,
): Promise<{ differences: number[]; knownSlower: number; median: number }> {
  const time = async (run: () => Promise<unknown>) => {
    const start = process.hrtime.bigint();
    await run();
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const differences: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let a: number;
    let b: number;
    if (Math.random() < 0.5) {
      a = await time(known);
      b = await time(unknown);
    } else {
      b = await time(unknown);
      a = await time(known);
    }
    differences.push(a - b);
    await between();
  }
  const sorted = [...differences].sort((x, y) => x - y);
  const median = (sorted[Math.floor((rounds - 1) / 2)]! + sorted[Math.ceil((rounds - 1) / 2)]!) / 2;
  return { differences, knownSlower: differences.filter((d) => d > 0).length, median };
}

export function assertNoUsableDifference(result: { differences: number[]; knownSlower: number; median: number }, boundMs: number): void {
  const n = result.differences.length;
  const detail = `known slower in ${result.knownSlower}/${n} rounds, median difference ${result.median.toFixed(2)} ms`;
  assert.ok(result.knownSlower >= n * 0.25 && result.knownSlower <= n * 0.75, `sign test: ${detail}`);
  assert.ok(Math.abs(result.median) <= boundMs, `median: ${detail}`);
}
