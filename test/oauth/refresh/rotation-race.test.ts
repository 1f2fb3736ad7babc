// Issue 5's concurrency proof on the test database (PGlite here, the PostgreSQL server in the second pass):
// 200 races of 10 parallel real HTTP refreshes of one token each, zero violations allowed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../../src/clock.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { codeGrantTokens, createClient, refreshWith } from '../../helpers/oauth-fixtures.js';
import { grantIdOf, judgeRace, type RaceOutcome } from '../../helpers/refresh-race.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser } from '../../helpers/users.js';

const RACES = Number(process.env.RACES ?? 200);
const PARALLEL = 10;
let t: TestApp;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
});
after(async () => {
  await t.close();
});

test('the 200× race: 10 parallel uses of one refresh token never leave two live branches', async () => {
  const fixture = await createClient(t.core.db, systemClock);
  const user = await createUser(t.core.db, systemClock);
  const outcomes: RaceOutcome[] = [];
  for (let i = 0; i < RACES; i++) {
    const tokens = await codeGrantTokens(t, fixture, user, ['orders:read']);
    const refreshToken = tokens.refresh_token as string;
    const grantId = await grantIdOf(t.core.db, refreshToken);
    const responses = await Promise.all(Array.from({ length: PARALLEL }, () => refreshWith(t.url, fixture, refreshToken)));
    outcomes.push(await judgeRace(t.core.db, grantId, responses, new Date()));
  }
  const violations = outcomes.filter((o) => o.violation);
  const intact = outcomes.filter((o) => !o.revoked).length;
  console.log(`races=${RACES} violations=${violations.length} intact=${intact} revoked=${RACES - intact}`);
  assert.deepEqual(violations, []);
  assert.ok(outcomes.every((o) => o.successes <= 1));
});
