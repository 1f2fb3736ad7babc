// The rotation race across processes: two real server processes (src/main.ts) share one PostgreSQL server;
// each race sends 5 parallel refreshes of one token to each process. 200 races, zero violations allowed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../src/clock.js';
import { openPostgres, type Database } from '../../../src/storage/driver/database.js';
import { createStore } from '../../../src/storage/store.js';
import { createPostgresDatabaseUrl } from '../../helpers/database.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { codeGrantTokens, createClient, refreshWith } from '../../helpers/oauth-fixtures.js';
import { grantIdOf, judgeRace, type RaceOutcome } from '../../helpers/refresh-race.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser } from '../../helpers/users.js';

const RACES = Number(process.env.RACES ?? 200);
const servers: ServerProcess[] = [];
let database: Database;
let dropDatabase: () => Promise<void>;
const dataDirs: string[] = [];

before(async () => {
  const created = await createPostgresDatabaseUrl();
  dropDatabase = created.drop;
  const env = {
    DATABASE_URL: created.url,
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    ...NO_LIMITS,
  };
  // One after the other: the first creates the signing keys, the second finds them.
  for (let i = 0; i < 2; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-race-'));
    dataDirs.push(dir);
    servers.push(await startServerProcess({ ...env, DATA_DIR: dir }));
  }
  database = await openPostgres(created.url, 4);
});

after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await database?.close();
  await dropDatabase?.();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

test('the 200× race across two server processes sharing one PostgreSQL never leaves two live branches', async () => {
  const [a, b] = servers as [ServerProcess, ServerProcess];
  const codeDeps = {
    store: createStore(database.db, systemClock),
    clock: systemClock,
    config: { AUTH_CODE_TTL: 60, REFRESH_TOKEN_ABSOLUTE_TTL: 2_592_000, REFRESH_TOKEN_IDLE_TTL: 1_209_600 },
  };
  const fixture = await createClient(database.db, systemClock);
  const user = await createUser(database.db, systemClock);
  const outcomes: RaceOutcome[] = [];
  for (let i = 0; i < RACES; i++) {
    const t0 = Date.now();
    const tokens = await codeGrantTokens({ url: a.url, core: codeDeps }, fixture, user, ['orders:read']);
    const refreshToken = tokens.refresh_token as string;
    const grantId = await grantIdOf(database.db, refreshToken);
    const responses = await Promise.all(Array.from({ length: 10 }, (_, n) => refreshWith((n % 2 === 0 ? a : b).url, fixture, refreshToken)));
    outcomes.push(await judgeRace(database.db, grantId, responses, new Date()));
    if (process.env.RACE_TIMING) console.log(`race ${i}: ${Date.now() - t0} ms`);
  }
  const violations = outcomes.filter((o) => o.violation);
  const intact = outcomes.filter((o) => !o.revoked).length;
  console.log(`races=${RACES} violations=${violations.length} intact=${intact} revoked=${RACES - intact}`);
  assert.deepEqual(violations, []);
});
