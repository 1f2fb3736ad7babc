// Start-up connection: retries an unreachable PostgreSQL with exponential backoff for a bounded time,
// and keeps two processes from opening one embedded PGlite directory at once.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from '../config.js';
import { openDatabase, type Database } from './database.js';
import { isDatabaseUnavailable } from './unavailable.js';
import { describeDataDir, makePrivate, prepareDataDir } from '../startup/data-dir.js';
import { StartupError } from '../startup/startup-error.js';

export { StartupError };

type ConnectConfig = Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'DATABASE_POOL_SIZE' | 'DATABASE_PREPARED_STATEMENTS' | 'DATABASE_STARTUP_TIMEOUT'>;

export async function connectDatabase(config: ConnectConfig, log: (message: string) => void = () => {}): Promise<Database> {
  if (!config.DATABASE_URL) {
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
