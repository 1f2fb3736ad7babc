// The database side of a code exchange and a refresh rotation, without HTTP or token signing: the real
// redemption (src/oauth/codes) and rotation (src/oauth/refresh) statements, driven through the pool by P
// callers at once, on a throwaway server. Prints, per operation, the server's CPU (postmaster and every
// backend, /proc), WAL bytes, statements with pg_stat_statements execution and planning time, and how many
// row updates were HOT. A diagnostic for docs/embedded-database.md (issue 36), not part of `npm run bench`:
//
//   node --import tsx bench/db-write-path.ts [--server embedded|debian] [--ops 4000] [--parallel 20] [--pool 20] [--read-first]
//
// `embedded` is the embedded server with its durable settings (fsync on every commit); `debian` the bench's
// throwaway Debian server (scripts/pg-cluster.mjs: fsync off). Extra server settings: --set name=value.
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { randomToken, sha256 } from '../src/crypto/random.js';
import { authorizationCodes } from '../src/oauth/codes/index.js';
import { refreshTokens } from '../src/oauth/refresh/index.js';
import { openPostgres } from '../src/storage/driver/database.js';
import { startEmbeddedPostgres } from '../src/storage/driver/embedded-postgres.js';
import { migrate } from '../src/storage/driver/migrate.js';
import { createStore } from '../src/storage/store.js';
import { startCluster } from '../scripts/pg-cluster.mjs';
import { createClient } from '../test/helpers/oauth-fixtures.js';
import { createUser } from '../test/helpers/users.js';
import { spawn } from 'node:child_process';
import { processTree, processTreeCpuSeconds } from './lib/proc-stats.js';

const { values } = parseArgs({
  options: {
    server: { type: 'string', default: 'embedded' },
    ops: { type: 'string', default: '4000' },
    parallel: { type: 'string', default: '20' },
    pool: { type: 'string', default: '20' },
    set: { type: 'string', multiple: true, default: [] },
    // Statements run after the migrations, to try a schema change: --sql 'alter table … '
    sql: { type: 'string', multiple: true, default: [] },
    // Read the token's grant before rotating, as the refresh grant did on every request before issue 36.
    'read-first': { type: 'boolean', default: false },
    // Linux perf over the server's processes during each measured phase: <dir>/<phase>.perf.data
    perf: { type: 'string' },
  },
});
const ops = Number(values.ops);
const parallel = Number(values.parallel);
const extra = Object.fromEntries(values.set!.map((s) => s.split('=', 2) as [string, string]));

const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-db-write-path-'));
let url: string;
let postmasterPid: () => number;
let stop: () => Promise<void> | void;
if (values.server === 'embedded') {
  const server = await startEmbeddedPostgres(dataDir, () => {}, {
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on', ...extra },
  });
  url = server.url;
  postmasterPid = () => server.pid;
  stop = () => server.release();
} else {
  const cluster = await startCluster({ maxConnections: 100 });
  const c = new pg.Client({ connectionString: cluster.url });
  await c.connect();
  await c.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
  for (const [name, value] of Object.entries(extra)) await c.query(`alter system set ${name} = '${value}'`);
  await c.end();
  cluster.pause();
  cluster.resume();
  url = cluster.url;
  postmasterPid = () => cluster.postmasterPid()!;
  stop = () => cluster.stop();
}

process.on('uncaughtException', async (error) => {
  console.error(error);
  await stop();
  process.exit(1);
});
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query('create extension if not exists pg_stat_statements');
await admin.query(`set pg_stat_statements.track_planning = on`).catch(() => {});
const database = await openPostgres(url, Number(values.pool));
await migrate(database.db);
for (const statement of values.sql!) await admin.query(statement);
const config = parseConfig({ ...process.env, DATA_DIR: dataDir, AUTH_CODE_TTL: '600' });
const deps = { store: createStore(database.db, systemClock), clock: systemClock, config };
const codes = authorizationCodes(deps);
const refresh = refreshTokens(deps);
const user = await createUser(database.db, systemClock);
const { client } = await createClient(database.db, systemClock, { type: 'confidential' });
const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
const accessToken = () => ({ jti: randomUUID(), expiresAt: new Date(Date.now() + 600_000) });

async function inParallel<T>(items: T[], one: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let i = next++; i < items.length; i = next++) await one(items[i]!);
    }),
  );
}

interface Totals {
  cpu: number;
  lsn: string;
  statements: Map<string, { calls: number; exec: number; plan: number }>;
  tables: Map<string, { upd: number; hot: number }>;
}
async function totals(): Promise<Totals> {
  const cpu = processTreeCpuSeconds(postmasterPid());
  const lsn = (await admin.query<{ l: string }>('select pg_current_wal_insert_lsn()::text as l')).rows[0]!.l;
  const s = await admin.query<{ query: string; calls: string; exec: number; plan: number }>(
    `select query, calls::text, total_exec_time as exec, total_plan_time as plan from pg_stat_statements where query not like '%pg_stat%' and query not like '%pg_current_wal%'`,
  );
  const t = await admin.query<{ relname: string; upd: string; hot: string }>(
    `select relname, n_tup_upd::text as upd, n_tup_hot_upd::text as hot from pg_stat_user_tables`,
  );
  return {
    cpu,
    lsn,
    statements: new Map(s.rows.map((r) => [r.query, { calls: Number(r.calls), exec: r.exec, plan: r.plan }])),
    tables: new Map(t.rows.map((r) => [r.relname, { upd: Number(r.upd), hot: Number(r.hot) }])),
  };
}

async function report(label: string, work: () => Promise<void>): Promise<void> {
  await new Promise((r) => setTimeout(r, 1500)); // the statistics of the set-up reach the shared counters
  const perf = values.perf
    ? spawn('perf', ['record', '-F', '2000', '-o', join(values.perf, `${label.split(' ')[0]}.perf.data`), '-p', processTree(postmasterPid()).join(',')], {
        stdio: 'ignore',
      })
    : undefined;
  if (perf) await new Promise((r) => setTimeout(r, 500));
  const before = await totals();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  if (perf) {
    perf.kill('SIGINT');
    await new Promise((r) => perf.on('exit', r));
  }
  await new Promise((r) => setTimeout(r, 1500));
  const after = await totals();
  const wal = Number((await admin.query<{ d: string }>('select pg_wal_lsn_diff($1, $2)::text as d', [after.lsn, before.lsn])).rows[0]!.d);
  console.log(`\n${label}: ${ops} operations, ${parallel} at once, ${Math.round(ops / seconds)} per second`);
  console.log(`  server CPU per operation: ${(((after.cpu - before.cpu) / ops) * 1e6).toFixed(0)} µs (postmaster, backends, background processes)`);
  console.log(`  WAL per operation: ${(wal / ops).toFixed(0)} bytes`);
  for (const [query, a] of after.statements) {
    const b = before.statements.get(query) ?? { calls: 0, exec: 0, plan: 0 };
    const calls = a.calls - b.calls;
    if (calls < ops / 10) continue;
    console.log(
      `  ${(calls / ops).toFixed(2)} × exec ${(((a.exec - b.exec) * 1000) / calls).toFixed(1)} µs, plan ${(((a.plan - b.plan) * 1000) / calls).toFixed(1)} µs: ${query.replace(/\s+/g, ' ').slice(0, 90)}`,
    );
  }
  for (const [table, a] of after.tables) {
    const b = before.tables.get(table) ?? { upd: 0, hot: 0 };
    if (a.upd - b.upd > 0) console.log(`  ${table}: ${a.upd - b.upd} updates, ${a.hot - b.hot} HOT`);
  }
}

const input = {
  clientId: client.id,
  redirectUri: 'https://client.example/cb',
  codeChallenge: challenge,
  scope: ['openid', 'offline_access', 'users:read'],
  userId: user.id,
  authTime: Math.floor(Date.now() / 1000),
};
const minted: string[] = [];
for (let i = 0; i < ops; i++) minted.push(await codes.issue(input));
const firstTokens: string[] = [];
await report('code exchange (codes.redeem: one statement)', () =>
  inParallel(minted, async (code) => {
    const token = randomToken(32);
    const r = await codes.redeem(code, client.id, { accessToken: accessToken(), refreshTokenHash: sha256(token) });
    if (!r.ok || !r.refreshIssued) throw new Error(`redemption failed: ${JSON.stringify(r)}`);
    firstTokens.push(token);
  }),
);
await report(
  values['read-first'] ? 'refresh rotation (refreshTokens.findLive, then rotate: two statements)' : 'refresh rotation (refreshTokens.rotate: one statement)',
  () =>
    inParallel(firstTokens, async (token) => {
      if (values['read-first'] && !(await refresh.findLive(token))) throw new Error('the token is not live');
      const r = await refresh.rotate({ token, clientId: client.id, scope: [], accessToken: accessToken() });
      if (r.kind !== 'rotated') throw new Error(`rotation failed: ${JSON.stringify(r)}`);
    }),
);

await admin.end();
if (values.server === 'embedded') await stop(); // the embedded server is released before its pool closes
await database.close();
if (values.server !== 'embedded') await stop();
rmSync(dataDir, { recursive: true, force: true });
