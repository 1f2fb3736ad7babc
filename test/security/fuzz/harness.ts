// Property-based fuzzing harness (fast-check): a fixed, printed seed so every failure is reproducible
// (FUZZ_SEED=<n> reruns it), bounded runs (FUZZ_RUNS scales them), and the invariants every answer keeps:
// never a 5xx, never internals in a body, always the face's error format, no state change when the request
// was rejected, and /healthz still 200 afterwards.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { TestApp } from '../../helpers/app.js';
import { assertFace, assertNoLeak, type Face } from '../helpers/invariants.js';

export const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

/** Default runs per property, multiplied for *.long.test.ts. */
export const runs = (base: number, long = false): number => Math.round(base * (long ? 20 : 1) * Number(process.env.FUZZ_RUNS_SCALE ?? 1));

/**
 * Tables a rejected request must never change. Left out on purpose: idempotency_keys (a keyed 4xx outcome is
 * stored and replayed by design, draft §2.6), browser_sessions and interactions (a page visit may start them),
 * jobs (background work).
 */
const WATCHED = [
  'authorization_codes',
  'clients',
  'consents',
  'grant_access_tokens',
  'oauth_grants',
  'orders',
  'payments',
  'refresh_tokens',
  'reports',
  'revoked_access_tokens',
  'used_client_assertions',
  'users',
] as const;

export async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const select = WATCHED.map((name) => `(select count(*)::int from ${name}) as ${name}`).join(', ');
  const { rows } = await sql<Record<string, number>>`${sql.raw(`select ${select}`)}`.execute(t.core.db);
  return rows[0]!;
}

export interface Sent {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  headers: Headers;
}

export async function send(t: TestApp, request: Sent): Promise<Answer> {
  const response = await fetch(`${t.url}${request.path}`, {
    method: request.method,
    redirect: 'manual',
    headers: request.headers ?? {},
    ...(request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD' ? { body: request.body } : {}),
  });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text(), headers: response.headers };
}

/** Checks one answer against the invariants; `face` is the error format the route must use. */
export async function checkAnswer(t: TestApp, request: Sent, answer: Answer, face: Face, before?: Record<string, number>): Promise<void> {
  const context = `${request.method} ${request.path.slice(0, 200)}`;
  assert.ok(answer.status < 500, `${context} → ${answer.status}: ${answer.text.slice(0, 300)}`);
  // 414/431 come from the HTTP layer before any route (URLs and headers over the documented 8 KiB limits).
  if (answer.status === 414 || answer.status === 431) return;
  assertNoLeak(answer.text, context);
  assertNoLeak(answer.headers.get('location') ?? '', context);
  if (answer.status >= 400 && answer.status !== 405 && request.method !== 'HEAD') assertFace(face, answer.status, answer.contentType, answer.text, context);
  if (before && answer.status >= 400) assert.deepEqual(await rowCounts(t), before, `${context} → ${answer.status} changed state`);
}

/** Runs an async property with the fixed seed; the seed and counterexample path are printed on failure. */
export async function property<T>(name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, numRuns: number): Promise<void> {
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), { seed: SEED, numRuns, endOnFailure: true });
  if (details.failed) {
    const shorten = (text: string) => text.replace(/(.)\1{40,}/g, (run, ch: string) => `${ch}…(${run.length}×)`).slice(0, 3000);
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    assert.fail(
      `fuzz property "${name}" failed after ${details.numRuns} runs; reproduce with FUZZ_SEED=${details.seed} (path ${details.counterexamplePath})\ncounterexample: ${shorten(JSON.stringify(details.counterexample))}\ncause: ${shorten(cause)}`,
    );
  }
}

export async function assertHealthy(t: TestApp): Promise<void> {
  const response = await fetch(`${t.url}/healthz`);
  assert.equal(response.status, 200);
}

// ---- arbitraries -------------------------------------------------------------------------------------

const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '%00',
  '\r\n',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '"; DROP TABLE users; --',
  '../../../../etc/passwd',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup, sent as a literal string
  '${jndi:ldap://x}',
  '{{7*7}}',
  '\u202e\u0301',
  '😀',
  '\ud800',
  'null',
  'undefined',
  '[]',
  '{}',
  '-1',
  '1e309',
  '9'.repeat(400),
  'NaN',
  'true',
);

/** Strings an attacker would send: random unicode, grammar-breaking specials, and huge values. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 3, arbitrary: nasty },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

/** Header values fetch can put on the wire (no CR/LF/NUL; Latin-1). */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'Basic',
    'Basic !!!',
    'Bearer a.b.c',
    'Bearer eyJhbGciOiJub25lIn0.e30.',
    'DPoP x',
    'Negotiate abc',
    'Basic Og==',
    'bearer  x  y',
    `Bearer ${'a'.repeat(9000)}`,
  ),
);

/** A form/query body from random names and hostile values, mixing in the real parameter names. */
export function formOf(names: readonly string[]): fc.Arbitrary<Array<[string, string]>> {
  const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });
  return fc.array(fc.tuple(name, hostileString), { maxLength: 10 });
}

/** Lone surrogates cannot be sent as UTF-8 by any client; they become U+FFFD as a browser would send them. */
export const wellFormed = (s: string): string => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

export const encodeForm = (pairs: Array<[string, string]>): string =>
  pairs.map(([k, v]) => `${encodeURIComponent(wellFormed(k))}=${encodeURIComponent(wellFormed(v))}`).join('&');

/** Raw body bytes: JSON-ish, form-ish, or random. */
export const rawBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('{', '{"a":', '[', 'null', '\ufeff{}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"x":1}}}', '%%%', 'a=1&a=2&&=&%zz'),
  fc.uint8Array({ maxLength: 200 }),
  hostileString,
);

export const contentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  'application/json',
  'application/x-www-form-urlencoded',
  'application/merge-patch+json',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/xml',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  '*/*',
  'garbage',
);
