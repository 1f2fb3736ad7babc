// The cost of the audit chain (docs/audit-log.md, migration 0740): the real audit sink writing events, each in
// a transaction that also makes a change (as an admin change or a password change does), or alone (as a
// failed login does), by P callers at once — with the chain's commit-time link on, then off (its trigger
// disabled), alternating rounds on one throwaway server. A diagnostic beside the bench, not part of it:
//
//   node --import tsx bench/audit-chain.ts [--server embedded|debian] [--ops 2000] [--parallel 1,8,32] [--rounds 2]
//
// `embedded` is the embedded server with its durable settings (fsync on every commit): the chain-head lock is
// held across each commit's flush, so this is the case where the chain serialises most. `debian`: fsync off.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { systemClock } from '../src/clock.js';
import { auditSink, databaseSubscriber } from '../src/audit/audit-sink.js';
import { eventDigest } from '../src/storage/repositories/audit-chain-digest.js';
import { openPostgres } from '../src/storage/driver/database.js';
import { createStore, dbOf } from '../src/storage/store.js';
import { startEmbeddedPostgres } from '../src/storage/driver/embedded-postgres.js';
import { migrate } from '../src/storage/driver/migrate.js';
import { startCluster } from '../scripts/pg-cluster.mjs';

const { values } = parseArgs({
  options: {
    server: { type: 'string', default: 'embedded' },
    ops: { type: 'string', default: '2000' },
    parallel: { type: 'string', default: '1,8,32' },
    rounds: { type: 'string', default: '2' },
  },
});
const ops = Number(values.ops);
const levels = values.parallel!.split(',').map(Number);
const rounds = Number(values.rounds);

const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-audit-chain-'));
let url: string;
let stop: () => Promise<void> | void;
if (values.server === 'embedded') {
  const server = await startEmbeddedPostgres(dataDir, () => {});
  url = server.url;
  stop = () => server.release();
} else {
  const cluster = await startCluster({ maxConnections: 100 });
  url = cluster.url;
  stop = () => cluster.stop();
}

const database = await openPostgres(url, 40);
const { db } = database;
await migrate(db);
await sql`create table bench_changes (id serial primary key, n int not null)`.execute(db);
const store = createStore(db, systemClock);
const audit = auditSink({ clock: systemClock, subscribers: [databaseSubscriber(store)] });

const event = () => ({
  type: 'admin.client.updated' as const,
  actor: { kind: 'cli' as const, user: 'bench' },
  resource: 'client',
  resourceId: 'c1',
  changedFields: ['name'],
  details: { n: 1 },
});
const workloads = {
  'change + event in one transaction': () =>
    store.transaction(async (tx) => {
      await sql`insert into bench_changes (n) values (1)`.execute(dbOf(tx));
      await audit.emit(event(), { tx });
    }),
  'event alone (autocommit)': () => audit.emit(event()),
};

async function measure(work: () => Promise<unknown>, parallel: number) {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next++ < ops) {
        const t0 = performance.now();
        await work();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { perSecond: ops / seconds, p50: q(0.5), p99: q(0.99) };
}

const setChain = (on: boolean) => sql.raw(`alter table audit_events ${on ? 'enable' : 'disable'} trigger audit_events_chain`).execute(db);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  // The digest each event's writer computes in Node (canonical JSON + SHA-256), alone.
  const sample = {
    id: 'x',
    type: 't',
    occurred_at: new Date(),
    actor_kind: 'cli',
    actor_client_id: null,
    actor_user_id: 'bench',
    resource: 'client',
    resource_id: 'c1',
    subject: null,
    client_id: null,
    changed_fields: ['name'],
    details: { n: 1 },
    trace_id: null,
  };
  const t0 = performance.now();
  for (let i = 0; i < 20_000; i++) eventDigest(sample);
  console.log(`digest in Node: ${(((performance.now() - t0) * 1000) / 20_000).toFixed(1)} µs per event`);
  console.log(`server: ${values.server}; ${ops} operations per measurement, ${rounds} rounds alternating chain on/off; medians`);
  console.log('workload                               parallel  chain   ops/s   p50 ms  p99 ms');
  for (const [name, work] of Object.entries(workloads)) {
    for (const parallel of levels) {
      const results: Record<'on' | 'off', { perSecond: number[]; p50: number[]; p99: number[] }> = {
        on: { perSecond: [], p50: [], p99: [] },
        off: { perSecond: [], p50: [], p99: [] },
      };
      await measure(work, parallel); // warm-up
      for (let round = 0; round < rounds; round++) {
        for (const mode of round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
          await setChain(mode === 'on');
          const r = await measure(work, parallel);
          results[mode].perSecond.push(r.perSecond);
          results[mode].p50.push(r.p50);
          results[mode].p99.push(r.p99);
        }
      }
      await setChain(true);
      for (const mode of ['off', 'on'] as const) {
        const r = results[mode];
        console.log(
          `${name.padEnd(38)} ${String(parallel).padStart(8)}  ${mode.padEnd(5)} ${median(r.perSecond).toFixed(0).padStart(7)} ${median(r.p50).toFixed(2).padStart(8)} ${median(r.p99).toFixed(2).padStart(7)}`,
        );
      }
    }
  }
} finally {
  await database.close();
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
}
