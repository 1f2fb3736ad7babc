// Deeply nested JSON bodies are refused at parse time with a 400 in the route's error format, on every
// route that takes JSON: the resource API (idempotent POST, merge-patch PATCH) and dynamic registration.
// Nothing downstream (fingerprinting, merge patch, validation) may recurse on a depth the caller chose.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { executeCommand } from '../../src/cli/execute.js';
import { canonicalJson } from '../../src/http/idempotency/canonical-json.js';
import { MAX_JSON_DEPTH } from '../../src/http/json-depth.js';
import { mergePatch, type Json } from '../../src/http/merge-patch.js';
import { ProblemError } from '../../src/http/errors.js';
import { usersFixture, type UsersFixture } from '../api/users/fixture.js';
import { shopTokens } from '../helpers/shop.js';

const LEVELS = 100_000;
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** A value nested `levels` deep, built without recursion (as a parser would). */
function nested(levels: number): Json {
  let value: Json = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('deeply nested JSON', () => {
  let f: UsersFixture;
  let paymentsToken: string;
  let initialToken: string;
  before(async () => {
    f = await usersFixture({ env: { RATE_LIMIT_ENABLED: 'false', OVERLOAD_MAX_EVENT_LOOP_DELAY: '0' } });
    paymentsToken = (await shopTokens(f.t.core).user()).token;
    initialToken = String(
      ((await executeCommand(['registration-token', 'create', '--ttl', '3600'], f.t.core)) as { initial_access_token: string }).initial_access_token,
    );
  });
  after(() => f.t.close());

  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${f.t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  async function assertTooDeepProblem(res: Response) {
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const problem = (await res.json()) as { code: string; type: string };
    assert.equal(problem.code, 'json-too-deep');
    assert.equal(problem.type, `${f.t.url}/problems/json-too-deep`);
  }

  test('a JSON body nested deeper than the documented depth is a 400 json-too-deep problem at POST /v1/payments (with Idempotency-Key), never a 500', async () => {
    for (const body of [deepArray(LEVELS), deepObject(LEVELS), deepArray(MAX_JSON_DEPTH + 1)]) {
      const res = await post('/v1/payments', body, { authorization: `Bearer ${paymentsToken}`, 'idempotency-key': randomUUID() });
      await assertTooDeepProblem(res);
    }
  });

  test('a merge-patch body nested deeper than the documented depth is a 400 json-too-deep problem at PATCH /v1/users/{id}', async () => {
    for (const body of [deepArray(LEVELS), deepObject(LEVELS)]) {
      const res = await f.api(`/v1/users/${f.u1.id}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', 'if-match': '*' }, body });
      await assertTooDeepProblem(res);
    }
  });

  test('a registration body nested deeper than the documented depth is a 400 invalid_request at POST /register (OAuth error format), never a 500', async () => {
    for (const body of [deepArray(LEVELS), deepObject(LEVELS)]) {
      const res = await post('/register', body, { authorization: `Bearer ${initialToken}` });
      assert.equal(res.status, 400);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const error = (await res.json()) as { error: string; error_description: string };
      assert.equal(error.error, 'invalid_request');
      assert.match(error.error_description, /nested/);
    }
  });

  test('JSON nested exactly to the documented depth is still accepted by the parser (the request reaches validation)', async () => {
    const res = await post('/v1/payments', deepObject(MAX_JSON_DEPTH), { authorization: `Bearer ${paymentsToken}`, 'idempotency-key': randomUUID() });
    assert.ok([400, 422].includes(res.status), String(res.status));
    assert.notEqual(((await res.json()) as { code: string }).code, 'json-too-deep');
  });

  test('brackets and braces inside JSON strings do not count as nesting', async () => {
    const body = JSON.stringify({ amount: '1', currency: 'EUR', account: '[[[[{{{{\\"'.repeat(6).slice(0, 64) });
    const res = await post('/v1/payments', body, { authorization: `Bearer ${paymentsToken}`, 'idempotency-key': randomUUID() });
    assert.equal(res.status, 201, await res.text());
  });
});

test('canonical-JSON fingerprinting refuses a value nested deeper than the documented depth instead of recursing', () => {
  assert.throws(
    () => canonicalJson(nested(LEVELS)),
    (e) => e instanceof ProblemError && e.code === 'json-too-deep',
  );
  assert.equal(canonicalJson(nested(3)), '{"a":{"a":{"a":1}}}');
});

test('merge patch refuses a patch or target nested deeper than the documented depth instead of recursing', () => {
  const isTooDeep = (e: unknown) => e instanceof ProblemError && e.code === 'json-too-deep';
  assert.throws(() => mergePatch({}, nested(LEVELS)), isTooDeep);
  assert.throws(() => mergePatch(nested(LEVELS), nested(LEVELS)), isTooDeep);
  assert.deepEqual(mergePatch({ a: { b: 1 } }, { a: { c: 2 } }), { a: { b: 1, c: 2 } });
});
