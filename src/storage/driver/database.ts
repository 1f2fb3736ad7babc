// Opens the one database Gatehouse uses: a PostgreSQL server through `pg` (the embedded one in DATA_DIR,
// started by connect.ts, or the one at DATABASE_URL), or PGlite when DATABASE_URL=pglite: asks for it.
// Both speak the same SQL; nothing above this module knows which it is.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.js';
import { PGliteDialect } from './pglite-dialect.js';
import { withPreparedStatements } from './prepared-statements.js';
import { pgliteNotifications, postgresNotifications, type NotificationSource } from './notifications.js';
import { REVOCATIONS_CHANNEL } from '../repositories/revocations-repository.js';
import { IDENTITY_PROVIDERS_CHANNEL } from '../repositories/enabled-identity-providers.js';
import { WEBHOOK_ENDPOINTS_CHANNEL } from '../repositories/webhook-subscriptions.js';

export type Db = Kysely<DB>;

export interface Database {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  ping(timeoutMs?: number): Promise<void>;
  /** Queries waiting for a free connection right now (load shedding reads it). */
  waiting(): number;
  /** LISTEN/NOTIFY (absent: every subscriber falls back to reading the database). */
  readonly notifications?: NotificationSource;
  close(): Promise<void>;
}

/** The channels every connection listens to (notifications.ts). */
const CHANNELS = [REVOCATIONS_CHANNEL, WEBHOOK_ENDPOINTS_CHANNEL, IDENTITY_PROVIDERS_CHANNEL];

export interface DatabaseOptions {
  DATABASE_URL?: string | undefined;
  DATA_DIR: string;
  DATABASE_POOL_SIZE: number;
  DATABASE_PREPARED_STATEMENTS?: boolean;
}

// int8 (bigint, count(*)) as a JS number: every int8 Gatehouse stores fits in 2^53. Given to each pool and
// each PGlite instance it opens, not set on pg's process-wide defaults, so other users of `pg` in the same
// process (a test's own pool, an embedding application) keep theirs.
const INT8_OID = 20;
const parseInt8 = (v: string) => Number(v);
const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** `pglite:` (any spelling after the scheme) selects PGlite in DATA_DIR/pglite instead of a PostgreSQL server. */
export const isPGliteUrl = (url: string): boolean => /^pglite:/i.test(url);

/** A PostgreSQL server at DATABASE_URL, or PGlite (DATABASE_URL=pglite:, or no DATABASE_URL: the caller starts the embedded server). */
export async function openDatabase(options: DatabaseOptions & { inMemory?: boolean }): Promise<Database> {
  if (options.DATABASE_URL && !isPGliteUrl(options.DATABASE_URL)) {
    return openPostgres(options.DATABASE_URL, options.DATABASE_POOL_SIZE, { prepared: options.DATABASE_PREPARED_STATEMENTS ?? true });
  }
  return openPGlite(options.inMemory ? undefined : join(options.DATA_DIR, 'pglite'));
}

/** The pg pool behind `openPostgres`, exported so its failure handling can be tested directly. */
export function postgresPool(url: string, poolSize: number, onConnect: (client: pg.PoolClient) => void = () => {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: pgTypes,
    // Waiting for a free connection is bounded, so an exhausted pool answers 503 instead of hanging.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // A client losing its server (PostgreSQL restart, terminated backend) emits 'error'. pg-pool listens only
  // while the client is idle; a client checked out at that moment (mid-transaction) would crash the process
  // with an unhandled 'error' event. Its queries fail on their own, and the pool discards it on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    onConnect(client);
  });
  return pool;
}

export async function openPostgres(url: string, poolSize = 20, { prepared = true }: { prepared?: boolean } = {}): Promise<Database> {
  const notifications = postgresNotifications(url, CHANNELS);
  const pool = postgresPool(url, poolSize, (client) => notifications.attach(client));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: prepared ? withPreparedStatements(pool) : pool }) });
  return {
    db,
    kind: 'postgres',
    waiting: () => pool.waitingCount,
    ping: (timeoutMs = 2_000) =>
      withTimeout(
        sql`select 1`.execute(db).then(() => undefined),
        timeoutMs,
      ),
    notifications,
    close: async () => {
      await notifications.close();
      await db.destroy();
    },
  };
}

export async function openPGlite(dir: string | undefined): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pglite = await PGlite.create(dir ? { dataDir: dir, parsers: { [INT8_OID]: parseInt8 } } : { parsers: { [INT8_OID]: parseInt8 } });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    waiting: () => 0,
    ping: (timeoutMs = 2_000) =>
      withTimeout(
        sql`select 1`.execute(db).then(() => undefined),
        timeoutMs,
      ),
    notifications: pgliteNotifications(pglite),
    close: () => db.destroy(),
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
