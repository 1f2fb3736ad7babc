// The embedded default database: a real PostgreSQL server (binaries from npm) that Gatehouse starts, owns and
// stops, in DATA_DIR/postgres, reachable only through a Unix socket inside that private directory. Several
// Gatehouse processes (and the CLI) share one server: whoever finds none running starts it, the others adopt
// it, and the last one to leave stops it. Why a server instead of PGlite, and what it guarantees:
// docs/embedded-database.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { StartupError } from '../../startup/startup-error.js';
import { embeddedBinaries, reachableBy, serverAccount, type Binaries, type ServerAccount } from './embedded-postgres-binaries.js';

export interface EmbeddedServer {
  /** Connection string for `pg` (Unix socket, trust authentication inside the private directory). */
  readonly url: string;
  /** The postmaster's pid. */
  readonly pid: number;
  /** True when this process started the server (false: it adopted one already running). */
  readonly started: boolean;
  /** Stops the server unless other Gatehouse processes are still connected to it. Call before closing the pool. */
  release(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Extra server settings (name → value) on top of the durable defaults; the test runner's throwaway server uses it. */
  settings?: Record<string, string>;
  /** How long to wait for the server to accept connections. */
  timeoutMs?: number;
}

export const clusterDir = (dataDir: string): string => join(dataDir, 'postgres');

// A Unix socket's path is limited to 107 bytes (sun_path) on Linux.
const SOCKET_NAME = '.s.PGSQL.5432';
const MAX_SOCKET_PATH = 107;

/** Settings passed on the command line, so they hold for directories created by older versions too. */
const DURABLE_SETTINGS: Record<string, string> = {
  listen_addresses: '',
  // Relative to the data directory: the server reaches its directory through an inherited descriptor (below).
  unix_socket_directories: '.',
  // Owner-only like everything in DATA_DIR (the directory already keeps others out).
  unix_socket_permissions: '0700',
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
  // No replicas: the WAL carries only what crash recovery needs.
  wal_level: 'minimal',
  max_wal_senders: '0',
  shared_buffers: '32MB',
  max_connections: '100',
  huge_pages: 'off',
  cluster_name: 'gatehouse',
};

export async function startEmbeddedPostgres(dataDir: string, log: (message: string) => void, options: EmbeddedOptions = {}): Promise<EmbeddedServer> {
  const cluster = clusterDir(dataDir);
  if (join(cluster, SOCKET_NAME).length > MAX_SOCKET_PATH) {
    throw new StartupError(
      `DATA_DIR ${dataDir} is too long a path for the embedded database's socket (at most ${MAX_SOCKET_PATH - `/postgres/${SOCKET_NAME}`.length} characters); use a shorter DATA_DIR`,
    );
  }
  refuseLegacyPGlite(dataDir);
  const found = await embeddedBinaries();
  checkMajorVersion(cluster, found.major);
  const account = serverAccount(log);
  const binaries = reachableBy(found, account, log);
  if (!existsSync(join(cluster, 'PG_VERSION'))) await initCluster(dataDir, binaries, account, log);

  const url = `postgresql://postgres@${encodeURIComponent(cluster)}/postgres?application_name=${encodeURIComponent(applicationName())}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const settings = { ...DURABLE_SETTINGS, ...options.settings };
  for (;;) {
    const running = runningPid(cluster);
    if (running !== undefined) {
      // A server is up (another Gatehouse, or one orphaned by a kill -9 of its starter): adopt it once it answers.
      if (await answers(url)) return server(url, running, false);
    } else {
      const outcome = await launch(cluster, binaries, account, settings, url, deadline);
      if (outcome.kind === 'ready') {
        log(`embedded PostgreSQL ${binaries.major} started in ${cluster} (pid ${outcome.pid})`);
        return server(url, outcome.pid, true);
      }
      // Another process won the race to start it (PostgreSQL's own postmaster.pid lock), or the previous
      // server's processes are still exiting: look again.
      if (outcome.kind === 'failed') throw new StartupError(`the embedded PostgreSQL server did not start: ${outcome.reason} (log: ${logFile(dataDir)})`);
    }
    if (Date.now() > deadline)
      throw new StartupError(`the embedded PostgreSQL server in ${cluster} did not accept connections in time (log: ${logFile(dataDir)})`);
    await delay(100);
  }
}

const applicationName = () => `gatehouse-${process.pid}`;
const logFile = (dataDir: string) => join(dataDir, 'postgres.log');

function refuseLegacyPGlite(dataDir: string): void {
  if (existsSync(join(dataDir, 'pglite')) && !existsSync(clusterDir(dataDir))) {
    throw new StartupError(
      `DATA_DIR ${dataDir} holds a PGlite database from an earlier Gatehouse, and the embedded default is now a PostgreSQL server. ` +
        `Keep using it with DATABASE_URL=pglite:, or move ${join(dataDir, 'pglite')} away to start afresh (docs/embedded-database.md)`,
    );
  }
}

function checkMajorVersion(cluster: string, major: number): void {
  const file = join(cluster, 'PG_VERSION');
  if (!existsSync(file)) return;
  const found = readFileSync(file, 'utf8').trim();
  if (found !== String(major)) {
    throw new StartupError(
      `the embedded database in ${cluster} was created by PostgreSQL ${found}, and this Gatehouse ships PostgreSQL ${major}. ` +
        `Start the Gatehouse version that created it (embedded-postgres ${found}.x) and copy the data out with pg_dump, or upgrade the directory with pg_upgrade; then restore into a new DATA_DIR (docs/embedded-database.md)`,
    );
  }
}

/** initdb into a scratch directory renamed into place when complete, so an interrupted first start leaves nothing half made. */
async function initCluster(dataDir: string, binaries: Binaries, account: ServerAccount | undefined, log: (message: string) => void): Promise<void> {
  const cluster = clusterDir(dataDir);
  const scratch = `${cluster}.init`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { mode: 0o700 });
  if (account) chownSync(scratch, account.uid, account.gid);
  const args = ['--username=postgres', '--auth=trust', '--encoding=UTF8', '--locale=C'];
  const result = await runWithDirectory(binaries.initdb, args, scratch, account, join(dataDir, 'initdb.log'));
  if (result !== 0) {
    throw new StartupError(`initdb failed for the embedded database (exit ${result}); see ${join(dataDir, 'initdb.log')}`);
  }
  renameSync(scratch, cluster);
  rmSync(join(dataDir, 'initdb.log'), { force: true });
  log(`new embedded PostgreSQL ${binaries.major} database in ${cluster}`);
}

/**
 * The server process sees its data directory only as descriptor 3 (/proc/self/fd/3): under root it runs as
 * another account, which cannot traverse DATA_DIR (0700, root's) by path, and DATA_DIR stays private.
 */
function spawnWithDirectory(
  program: string,
  args: string[],
  dir: string,
  account: ServerAccount | undefined,
  logPath: string,
  detached: boolean,
): ChildProcess {
  const dirFd = openSync(dir, 'r');
  const logFd = openSync(logPath, 'a', 0o600);
  try {
    return spawn(program, ['-D', '/proc/self/fd/3', ...args], {
      cwd: '/',
      stdio: ['ignore', logFd, logFd, dirFd],
      detached,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
      ...(account ? { uid: account.uid, gid: account.gid } : {}),
    });
  } finally {
    closeSync(dirFd);
    closeSync(logFd);
  }
}

function runWithDirectory(program: string, args: string[], dir: string, account: ServerAccount | undefined, logPath: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawnWithDirectory(program, args, dir, account, logPath, false);
    child.on('error', () => resolve(-1));
    child.on('exit', (code) => resolve(code ?? -1));
  });
}

type Launch = { kind: 'ready'; pid: number } | { kind: 'retry' } | { kind: 'failed'; reason: string };

async function launch(
  cluster: string,
  binaries: Binaries,
  account: ServerAccount | undefined,
  settings: Record<string, string>,
  url: string,
  deadline: number,
): Promise<Launch> {
  const logPath = logFile(join(cluster, '..'));
  const logStart = existsSync(logPath) ? readFileSync(logPath).length : 0;
  const args = Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  // Detached: its own session, so a Ctrl-C meant for Gatehouse reaches Gatehouse, which shuts down in order.
  const child = spawnWithDirectory(binaries.postgres, args, cluster, account, logPath, true);
  let exited = false;
  child.on('exit', () => (exited = true));
  child.on('error', () => (exited = true));
  child.unref();
  while (Date.now() < deadline) {
    if (await answers(url)) return { kind: 'ready', pid: child.pid ?? 0 };
    if (exited) {
      const output = readFileSync(logPath).subarray(logStart).toString('utf8');
      if (/lock file "postmaster.pid" already exists|pre-existing shared memory block/.test(output)) return { kind: 'retry' };
      const reason = output
        .split('\n')
        .filter((l) => /FATAL|PANIC|ERROR/.test(l))
        .slice(-2)
        .join('; ');
      return { kind: 'failed', reason: reason || 'it exited at once' };
    }
    await delay(50);
  }
  return { kind: 'retry' };
}

/** The pid in postmaster.pid when that process is alive (a stale file from a killed server is ignored). */
export function runningPid(cluster: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function server(url: string, pid: number, started: boolean): EmbeddedServer {
  return {
    url,
    pid,
    started,
    async release() {
      // Last one out stops the server: other Gatehouse processes (or a CLI command) still connected keep it.
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
      client.on('error', () => {});
      let others = 0;
      try {
        await client.connect();
        const r = await client.query<{ n: number }>(
          "select count(distinct application_name)::int as n from pg_stat_activity where application_name like 'gatehouse-%' and application_name <> $1",
          [applicationName()],
        );
        others = r.rows[0]?.n ?? 0;
      } catch {
        return; // the server is gone already
      } finally {
        await client.end().catch(() => {});
      }
      if (others === 0) await stopServer(pid);
    },
  };
}

/** Fast shutdown (SIGINT): open transactions roll back, everything committed is already on disk. */
async function stopServer(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (let i = 0; i < 600; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await delay(50);
  }
}
