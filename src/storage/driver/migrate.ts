// Forward-only SQL migrations from migrations/NNNN_name.sql, applied in one transaction under a
// PostgreSQL advisory lock, so two processes starting together never apply one twice.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { packageRoot } from './package-root.js';

const MIGRATION_LOCK = 727_001;
const MIGRATION_FILE = /^\d{4}_[a-z0-9_-]+\.sql$/;

export interface Migration {
  readonly version: string;
  readonly sql: string;
}

/**
 * Every migration is one file, migrations/NNNN_name.sql, and its number is its own. Anything else in the
 * directory (a typo in a name, a second file with a taken number, a migration in another language) is
 * refused rather than silently skipped or applied in an order nobody chose.
 */
export function loadMigrations(dir = join(packageRoot(), 'migrations')): Migration[] {
  const files = readdirSync(dir).sort();
  const strays = files.filter((f) => !MIGRATION_FILE.test(f));
  if (strays.length > 0) throw new Error(`migrations/: not a migration file (NNNN_name.sql): ${strays.join(', ')}`);
  const numbers = files.map((f) => f.slice(0, 4));
  const taken = numbers.filter((n, i) => numbers.indexOf(n) !== i);
  if (taken.length > 0) throw new Error(`migrations/: more than one file numbered ${[...new Set(taken)].join(', ')}`);
  return files.map((f) => ({ version: f.replace(/\.sql$/, ''), sql: readFileSync(join(dir, f), 'utf8') }));
}

/** Applies pending migrations; returns the versions applied by this call. */
// biome-ignore lint/suspicious/noExplicitAny: migrations create the schema that DB describes, so they take a database of any shape
export async function migrate(db: Kysely<any>, migrations = loadMigrations()): Promise<string[]> {
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(tx);
    await sql`create table if not exists schema_migrations (
      version text primary key,
      applied_at timestamptz not null default now()
    )`.execute(tx);
    const applied = new Set((await sql<{ version: string }>`select version from schema_migrations`.execute(tx)).rows.map((r) => r.version));
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await sql.raw(migration.sql).execute(tx);
      await sql`insert into schema_migrations (version) values (${migration.version})`.execute(tx);
      done.push(migration.version);
    }
    return done;
  });
}
