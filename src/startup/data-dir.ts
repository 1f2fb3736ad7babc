// DATA_DIR holds the embedded database, the generated key-encryption key and the CLI's admin socket: it is
// private to the user who runs Gatehouse, like a PostgreSQL data directory. It is created owner-only, and
// an existing one that its group or others may enter, read or write is refused rather than used.
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { StartupError } from './startup-error.js';

/** What a process creates in DATA_DIR while it runs: owner-only files (0600) and directories (0700). */
export const PRIVATE_UMASK = 0o077;

/**
 * Makes sure DATA_DIR exists, is a directory, belongs to this user and is private to it.
 * Returns true when it was created just now.
 */
export function prepareDataDir(dir: string): boolean {
  const stats = statOrUndefined(dir);
  if (!stats) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // mkdir's mode is filtered through the umask; the directory must be 0700 whatever the umask was.
      chmodSync(dir, 0o700);
    } catch (error) {
      throw new StartupError(`DATA_DIR ${dir} cannot be created (${describe(error)})`);
    }
    return true;
  }
  if (!stats.isDirectory()) throw new StartupError(`DATA_DIR ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    throw new StartupError(`DATA_DIR ${dir} belongs to another user (uid ${stats.uid}); run Gatehouse as its owner`);
  }
  const mode = stats.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new StartupError(
      `DATA_DIR ${dir} is accessible by its group or others (mode ${mode.toString(8).padStart(4, '0')}); the embedded database must be private to its owner: chmod 700 ${dir}`,
    );
  }
  return false;
}

/**
 * Takes group and other permissions off everything under `dir`. PGlite unpacks its initial database with
 * mode 0666 whatever the umask; files it creates later go through the process umask (PRIVATE_UMASK).
 */
export function makePrivate(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    const mode = lstatSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
    if (entry.isDirectory()) makePrivate(path);
  }
}

export const describeDataDir = (dir: string): string => resolve(dir);

function statOrUndefined(dir: string): Stats | undefined {
  try {
    return statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw new StartupError(`DATA_DIR ${dir} is not a directory (a part of its path is a file)`);
    throw new StartupError(`DATA_DIR ${dir} cannot be used (${describe(error)})`);
  }
}

const describe = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error as Error).message;
