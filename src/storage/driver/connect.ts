// Start-up connection: the embedded PostgreSQL server in DATA_DIR by default (started or adopted,
// src/storage/driver/embedded-postgres.ts), PGlite when asked for (DATABASE_URL=pglite:, one process per directory),
// or a PostgreSQL server at DATABASE_URL, retried with exponential backoff for a bounded time.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from '../../config.js';
import { isPGliteUrl, openDatabase, openPostgres, type Database } from './database.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { isDatabaseUnavailable } from './unavailable.js';
import { describeDataDir, makePrivate, prepareDataDir } from '../../startup/data-dir.js';
import { StartupError } from '../../startup/startup-error.js';

export { StartupError };

type ConnectConfig = Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'DATABASE_POOL_SIZE' | 'DATABASE_PREPARED_STATEMENTS' | 'DATABASE_STARTUP_TIMEOUT'>;

export async function connectDatabase(config: ConnectConfig, log: (message: string) => void = () => {}): Promise<Database> {
  if (!config.DATABASE_URL) return connectEmbedded(config, log);
  if (isPGliteUrl(config.DATABASE_URL)) {
    if (prepareDataDir(config.DATA_DIR)) log(`new database in ${describeDataDir(config.DATA_DIR)} (DATA_DIR did not exist)`);
    lockDataDir(config.DATA_DIR);
    const database = await openDatabase(config);
    makePrivate(config.DATA_DIR);
    return database;
  }
  const deadline = Date.now() + config.DATABASE_STARTUP_TIMEOUT * 1000;
  for (let attempt = 1, wait = 250; ; attempt++, wait = Math.min(wait * 2, 5_000)) {
    const database = await openDatabase(config);
    try {
      await database.ping(5_000);
      return database;
    } catch (error) {
      await database.close().catch(() => {});
      if (!isDatabaseUnavailable(error) && !(error instanceof Error && /password|authentication|does not exist/i.test(error.message))) throw error;
      if (Date.now() + wait > deadline) {
        throw new StartupError(`PostgreSQL at DATABASE_URL is not reachable (${(error as Error).message}); gave up after ${attempt} attempts`);
      }
      log(`database not reachable (attempt ${attempt}), retrying in ${wait} ms`);
      await delay(wait);
    }
  }
}

async function connectEmbedded(config: ConnectConfig, log: (message: string) => void): Promise<Database> {
  if (prepareDataDir(config.DATA_DIR)) log(`new database in ${describeDataDir(config.DATA_DIR)} (DATA_DIR did not exist)`);
  const server = await startEmbeddedPostgres(config.DATA_DIR, log, { timeoutMs: config.DATABASE_STARTUP_TIMEOUT * 1000 });
  const database = await openPostgres(server.url, config.DATABASE_POOL_SIZE, { prepared: config.DATABASE_PREPARED_STATEMENTS ?? true });
  return {
    ...database,
    async close() {
      // Before the pool closes: the server counts this process among its users until then.
      await server.release().catch(() => {});
      await database.close();
    },
  };
}

/** True when the CLI must go through the running server's admin socket: PGlite serves one process. */
export function usesSingleProcessDatabase(config: Pick<Config, 'DATABASE_URL'>): boolean {
  return config.DATABASE_URL !== undefined && isPGliteUrl(config.DATABASE_URL);
}

/** The pid of another live process that has DATA_DIR's embedded database open, if any. */
export function dataDirOwner(dataDir: string): number | undefined {
  const file = join(dataDir, 'gatehouse.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8'));
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : undefined;
}

/** PGlite is single-process: a pid file refuses a second live server on the same DATA_DIR. */
function lockDataDir(dataDir: string): void {
  const owner = dataDirOwner(dataDir);
  if (owner !== undefined) {
    throw new StartupError(
      `DATA_DIR ${dataDir} is in use by process ${owner}; the embedded database serves one process. Use DATABASE_URL to run several instances.`,
    );
  }
  const file = join(dataDir, 'gatehouse.pid');
  writeFileSync(file, String(process.pid), { mode: 0o600 });
  process.once('exit', () => {
    try {
      if (readFileSync(file, 'utf8') === String(process.pid)) rmSync(file);
    } catch {
      /* already gone */
    }
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
