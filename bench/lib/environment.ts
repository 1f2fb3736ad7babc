// Everything a run needs, started lazily on first use and stopped at the end: a throwaway PostgreSQL server
// (with pg_stat_statements, to count statements per request), Gatehouse on PostgreSQL and on PGlite, the
// peer (in memory, and on a throwaway redis-server) and the baselines, each in its own child process.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, startCluster, type Cluster } from '../../scripts/pg-cluster.mjs';
import { startChild, type ChildServer } from './child.js';
import { startBuiltGatehouse } from './built-server.js';
import { startRedis, type RedisServer } from './redis.js';

export interface EnvironmentOptions {
  /** Quick mode proves scenarios run: load shedding (503 under a starved CI machine) is switched off. */
  quick?: boolean;
  /** node --cpu-prof for the Gatehouse children; profiles go to this directory. */
  cpuProfileDir?: string;
  log(message: string): void;
}

export interface Environment {
  cluster(): Promise<Cluster>;
  /** Calls, execution and planning time and WAL per statement text so far (pg_stat_statements), for per-request breakdowns. */
  statementCalls(database: string): Promise<Map<string, StatementTotals> | undefined>;
  /** Whether this server keeps its data on the throwaway PostgreSQL server (Gatehouse on PostgreSQL, the baselines). */
  usesPostgres(server: ChildServer): boolean;
  /** The PostgreSQL postmaster's pid, to measure the database's CPU (undefined before the cluster starts). */
  postgresPid(): Promise<number | undefined>;
  /** The pid of the database server this server keeps its data in (PostgreSQL or redis-server), if any. */
  databasePid(server: ChildServer): Promise<number | undefined>;
  /** 'embedded': the default (no DATABASE_URL, its own PostgreSQL server in DATA_DIR); 'pglite': DATABASE_URL=pglite:. */
  gatehouse(kind: GatehouseKind): Promise<ChildServer>;
  /**
   * Stops that Gatehouse (cleanly: the embedded default's last process out stops its server) and starts it again on
   * the same DATA_DIR and port; later gatehouse(kind) calls return the new one. `built`: the new process is
   * `node dist/src/main.js` (what `npm start` runs, lib/built-server.ts), which takes no set-up calls.
   */
  restartGatehouse(kind: GatehouseKind, options?: { built?: boolean }): Promise<ChildServer>;
  /** Milliseconds from spawning this server's process to its ready message (listening, migrations done). */
  readyMs(server: ChildServer): number | undefined;
  /** node-oidc-provider with its in-memory adapter, or with the Redis adapter on a throwaway redis-server. */
  peer(store?: 'memory' | 'redis'): Promise<ChildServer>;
  baseline(): Promise<ChildServer>;
  /** Starts every server in parallel now (each is still awaited where it is used). */
  prestart(): void;
  stop(): Promise<void>;
}

/** Cumulative pg_stat_statements figures of one statement text. */
export interface StatementTotals {
  calls: number;
  execMs: number;
  planMs: number;
  walBytes: number;
}

export const GATEHOUSE_DB = 'gatehouse';
export type GatehouseKind = 'postgres' | 'pglite' | 'embedded';
export const gatehouseLabel = (kind: GatehouseKind): string =>
  kind === 'postgres' ? 'Gatehouse (PostgreSQL)' : kind === 'embedded' ? 'Gatehouse (embedded default)' : 'Gatehouse (PGlite)';
const BASELINE_DB = 'baseline';

export function environment(options: EnvironmentOptions): Environment {
  const started = new Map<string, Promise<ChildServer>>();
  const tempDirs: string[] = [];
  let clusterPromise: Promise<Cluster> | undefined;
  let redisPromise: Promise<RedisServer> | undefined;
  const onRedis = new Set<ChildServer>();
  let statements = false;
  const onPostgres = new Set<ChildServer>();
  const embeddedDirs = new Map<ChildServer, string>();
  const readyTimes = new Map<ChildServer, number>();
  const respawns = new Map<GatehouseKind, (built: boolean) => Promise<ChildServer>>();
  const backedByPostgres = (p: Promise<ChildServer>) =>
    p.then((c) => {
      onPostgres.add(c);
      return c;
    });

  const once = (key: string, start: () => Promise<ChildServer>) => {
    let p = started.get(key);
    if (!p) {
      p = start();
      started.set(key, p);
      p.then((c) => options.log(`started ${c.name} (pid ${c.pid}) at ${c.url}`)).catch(() => {});
    }
    return p;
  };

  async function admin<T>(f: (c: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> {
    const cluster = await env.cluster();
    const client = new pg.Client({ connectionString: cluster.databaseUrl(database) });
    await client.connect();
    try {
      return await f(client);
    } finally {
      await client.end();
    }
  }

  const env: Environment = {
    cluster() {
      clusterPromise ??= (async () => {
        options.log('starting a throwaway PostgreSQL server');
        const cluster = await startCluster({ maxConnections: 300 });
        const c = new pg.Client({ connectionString: cluster.url });
        await c.connect();
        try {
          await c.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
        } finally {
          await c.end();
        }
        cluster.pause();
        cluster.resume();
        // Planning time apart from execution time (shows what named prepared statements save): a setting of the
        // library, known only once the restart above loaded it.
        const t = new pg.Client({ connectionString: cluster.url });
        await t.connect();
        try {
          await t.query('alter system set pg_stat_statements.track_planning = on');
          await t.query('select pg_reload_conf()');
        } finally {
          await t.end();
        }
        for (const name of [GATEHOUSE_DB, BASELINE_DB]) {
          const a = new pg.Client({ connectionString: cluster.url });
          await a.connect();
          await a.query(`create database ${name}`);
          await a.end();
        }
        const s = new pg.Client({ connectionString: cluster.databaseUrl(GATEHOUSE_DB) });
        await s.connect();
        statements = await s.query('create extension if not exists pg_stat_statements').then(
          () => true,
          () => false,
        );
        await s.end();
        return cluster;
      })();
      return clusterPromise;
    },
    async statementCalls(database) {
      if (!statements) return undefined;
      return admin(async (c) => {
        const r = await c.query<{ query: string; calls: string; exec_ms: number; plan_ms: number; wal_bytes: string }>(
          `select s.query, sum(s.calls)::text as calls, sum(s.total_exec_time)::float8 as exec_ms, sum(s.total_plan_time)::float8 as plan_ms,
                  sum(s.wal_bytes)::text as wal_bytes
           from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = $1 group by s.query`,
          [database],
        );
        return new Map(
          r.rows.map((row) => [row.query, { calls: Number(row.calls), execMs: row.exec_ms, planMs: row.plan_ms, walBytes: Number(row.wal_bytes) }]),
        );
      }, GATEHOUSE_DB);
    },
    usesPostgres(server) {
      return onPostgres.has(server);
    },
    async databasePid(server) {
      if (onPostgres.has(server)) return env.postgresPid();
      if (onRedis.has(server)) return (await redisPromise)?.pid;
      const dir = embeddedDirs.get(server);
      if (!dir) return undefined;
      // The embedded default's own server: its postmaster pid is the first line of postmaster.pid.
      try {
        const pid = Number(readFileSync(join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
        return Number.isInteger(pid) && pid > 0 ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    async postgresPid() {
      if (!clusterPromise) return undefined;
      return (await clusterPromise.catch(() => undefined))?.postmasterPid();
    },
    gatehouse(kind) {
      return once(`gatehouse-${kind}`, async () => {
        const port = await freePort();
        const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
        tempDirs.push(dataDir);
        const database: Record<string, string> =
          kind === 'postgres' ? { DATABASE_URL: (await env.cluster()).databaseUrl(GATEHOUSE_DB) } : kind === 'pglite' ? { DATABASE_URL: 'pglite:' } : {};
        // BENCH_GATEHOUSE_NODE_FLAGS: extra node flags for the Gatehouse servers, e.g. --perf-basic-prof for `perf record`.
        const extraFlags = process.env.BENCH_GATEHOUSE_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
        const execArgv = [...extraFlags, ...(options.cpuProfileDir ? profileFlags(options.cpuProfileDir, `gatehouse-${kind}`) : [])];
        // One key for every start on this DATA_DIR: a restart must decrypt the signing keys the first start stored.
        const keyEncryptionKey = randomBytes(32).toString('base64url');
        const spawn = async (built: boolean) => {
          const spawned = performance.now();
          const childEnv = {
            NODE_ENV: 'production',
            PORT: String(port),
            HOST: '127.0.0.1',
            ISSUER: `http://127.0.0.1:${port}`,
            DATA_DIR: dataDir,
            KEY_ENCRYPTION_KEY: keyEncryptionKey,
            RATE_LIMIT_ENABLED: 'false',
            LOG_LEVEL: 'warn',
            // Codes are minted before a measured run; the default 60 s could expire a large pool.
            AUTH_CODE_TTL: '600',
            ...(options.quick ? { OVERLOAD_MAX_EVENT_LOOP_DELAY: '0', OVERLOAD_MAX_DB_WAITING: '0' } : {}),
            ...database,
          };
          const name = gatehouseLabel(kind).toLowerCase();
          const child = built
            ? await startBuiltGatehouse(`${name}, built`, { env: childEnv, port })
            : await startChild(name, new URL('../servers/gatehouse.ts', import.meta.url), { execArgv, env: childEnv });
          readyTimes.set(child, performance.now() - spawned);
          if (kind === 'embedded') embeddedDirs.set(child, dataDir);
          if (kind === 'postgres') onPostgres.add(child);
          return child;
        };
        respawns.set(kind, spawn);
        return spawn(false);
      });
    },
    async restartGatehouse(kind, restart = {}) {
      const key = `gatehouse-${kind}`;
      const current = started.get(key);
      const spawn = respawns.get(kind);
      if (!current || !spawn) throw new Error(`${gatehouseLabel(kind)} was never started: nothing to restart`);
      await (await current).stop();
      const next = spawn(restart.built === true);
      started.set(key, next);
      next.then((c) => options.log(`restarted ${c.name} (pid ${c.pid}) at ${c.url}`)).catch(() => {});
      return next;
    },
    readyMs(server) {
      return readyTimes.get(server);
    },
    peer(store = 'memory') {
      const execArgv = options.cpuProfileDir ? profileFlags(options.cpuProfileDir, `peer-${store}`) : [];
      if (store === 'memory') {
        return once('peer', () =>
          startChild('peer (node-oidc-provider 9)', new URL('../peer/server.ts', import.meta.url), { execArgv, env: { NODE_ENV: 'production' } }),
        );
      }
      return once('peer-redis', async () => {
        options.log('starting a throwaway redis-server (appendonly yes, appendfsync everysec)');
        const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-redis-'));
        tempDirs.push(dir);
        redisPromise ??= startRedis(dir);
        const redis = await redisPromise;
        const child = await startChild('peer (node-oidc-provider 9, Redis)', new URL('../peer/server.ts', import.meta.url), {
          execArgv,
          env: { NODE_ENV: 'production', PEER_REDIS_URL: redis.url },
        });
        onRedis.add(child);
        return child;
      });
    },
    baseline() {
      return once('baseline', async () => {
        const cluster = await env.cluster();
        return backedByPostgres(
          startChild('baseline (bare Fastify)', new URL('../baselines/server.ts', import.meta.url), {
            env: {
              NODE_ENV: 'production',
              BASELINE_DATABASE_URL: cluster.databaseUrl(BASELINE_DB),
              GATEHOUSE_DATABASE_URL: cluster.databaseUrl(GATEHOUSE_DB),
            },
          }),
        );
      });
    },
    prestart() {
      for (const start of [() => env.gatehouse('postgres'), () => env.gatehouse('embedded'), () => env.peer(), () => env.baseline()]) {
        start().catch(() => {});
      }
    },
    async stop() {
      const children = await Promise.allSettled([...started.values()]);
      await Promise.all(children.map((c) => (c.status === 'fulfilled' ? c.value.stop().catch(() => {}) : undefined)));
      if (clusterPromise) (await clusterPromise.catch(() => undefined))?.stop();
      if (redisPromise) await (await redisPromise.catch(() => undefined))?.stop();
      for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
    },
  };
  return env;
}

/** One directory per server: Node writes a profile per thread (tsx's loader runs in a worker thread). */
function profileFlags(dir: string, name: string): string[] {
  const target = join(dir, name);
  mkdirSync(target, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${target}`];
}
