// The resource API is limited per token subject (RATE_LIMIT_API): the user for user tokens,
// the client for client_credentials tokens. Every answer carries RateLimit-Policy / RateLimit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { codeGrantTokens, createClient } from '../helpers/oauth-fixtures.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { createUser } from '../helpers/users.js';

const LIMIT = 3;
let t: TestApp;
let user: User;
let stranger: User;

before(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_API: String(LIMIT), OVERLOAD_MAX_EVENT_LOOP_DELAY: '0' } });
  user = await createUser(t.core.db, t.core.clock);
  stranger = await createUser(t.core.db, t.core.clock);
});
after(() => t.close());

async function userToken(forUser: User): Promise<string> {
  const fixture = await createClient(t.core.db, t.core.clock, { type: 'confidential' });
  const tokens = await codeGrantTokens(t, fixture, forUser, ['openid', 'users:read']);
  return tokens.access_token as string;
}

const me = (token: string) => fetch(`${t.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });

test('the API is limited per token subject: two clients acting for one user share the budget, with RateLimit headers on success and a problem+json 429 past it', async () => {
  const [first, second] = [await userToken(user), await userToken(user)];
  const answers = [await me(first), await me(second), await me(first)];
  for (const [i, answer] of answers.entries()) {
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('ratelimit-policy'), `"api";q=${LIMIT};w=60`);
    assert.match(answer.headers.get('ratelimit') ?? '', new RegExp(`^"api";r=${LIMIT - 1 - i};t=\\d+$`));
  }
  const limited = await me(second);
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.match(limited.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(((await limited.json()) as { code: string }).code, 'rate-limited');
});

test('another subject keeps its own API budget', async () => {
  const answer = await me(await userToken(stranger));
  assert.equal(answer.status, 200);
  assert.match(answer.headers.get('ratelimit') ?? '', new RegExp(`r=${LIMIT - 1};`));
});

test('a request with an invalid token is refused by authentication without spending any subject budget', async () => {
  const answer = await me('not-a-token');
  assert.equal(answer.status, 401);
  assert.equal(answer.headers.get('ratelimit'), null);
});
