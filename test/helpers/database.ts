// A fresh, migrated database per test file: a new database created from a migrated template on the run's
// server: the embedded PostgreSQL server (GATEHOUSE_TEST_DB=embedded, started by scripts/test.mjs) or the
// throwaway Debian one (GATEHOUSE_TEST_DB=postgres); or (GATEHOUSE_TEST_DB=pglite) an in-memory PGlite loaded
// from a migrated template dump.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { openPostgres, type Database } from '../../src/storage/driver/database.js';
import { PGliteDialect } from '../../src/storage/driver/pglite-dialect.js';
import { pgliteNotifications } from '../../src/storage/driver/notifications.js';
import { loadMigrations, migrate } from '../../src/storage/driver/migrate.js';
import type { DB } from '../../src/storage/driver/schema.js';

const migrations = loadMigrations();
const schemaHash = createHash('sha256')
  .update(migrations.map((m) => m.version + m.sql).join('\n'))
  .digest('hex')
  .slice(0, 16);

export const testDatabaseKind = (): 'pglite' | 'postgres' => (process.env.GATEHOUSE_TEST_DB === 'pglite' ? 'pglite' : 'postgres');

export async function createTestDatabase(): Promise<Database> {
  return testDatabaseKind() === 'pglite' ? createPGliteDatabase() : createPostgresDatabase();
}

async function createPGliteDatabase(): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const parsers = { 20: (v: string) => Number(v) };
  const templateFile = join(tmpdir(), `gatehouse-pglite-template-${schemaHash}.tar.gz`);
  if (!existsSync(templateFile)) {
    const fresh = await PGlite.create({ parsers });
    await migrate(new Kysely<DB>({ dialect: new PGliteDialect(fresh) }), migrations);
    const dump = await fresh.dumpDataDir('gzip');
    const partial = `${templateFile}.${process.pid}.tmp`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, templateFile);
    await fresh.close();
  }
  const pglite = await PGlite.create({ parsers, loadDataDir: new Blob([readFileSync(templateFile)]) });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    waiting: () => 0,
    ping: async () => {
      await pglite.query('select 1');
    },
    notifications: pgliteNotifications(pglite),
    close: () => db.destroy(),
  };
}

export function adminUrl(): string {
  const url = process.env.GATEHOUSE_TEST_PG_URL;
  if (!url) throw new Error('GATEHOUSE_TEST_PG_URL is not set (run the suite through `npm test`)');
  return url;
}

export const databaseUrl = (name: string): string => {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
};

/** Creates an empty migrated database on the throwaway server and returns its URL (for child processes). */
export async function createPostgresDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  const template = `gatehouse_template_${schemaHash}`;
  const name = `t_${randomBytes(6).toString('hex')}`;
  try {
    await admin.query('select pg_advisory_lock(727002)');
    const exists = await admin.query('select 1 from pg_database where datname = $1', [template]);
    if (exists.rowCount === 0) {
      await admin.query(`create database ${template}`);
      const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl(template), max: 1 }) }) });
      await migrate(db, migrations);
      await db.destroy();
    }
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.query('select pg_advisory_unlock(727002)').catch(() => {});
    await admin.end();
  }
  return {
    url: databaseUrl(name),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await c.end();
    },
  };
}

async function createPostgresDatabase(): Promise<Database> {
  const { url, drop } = await createPostgresDatabaseUrl();
  const database = await openPostgres(url, 10);
  return {
    ...database,
    async close() {
      await database.close();
      await drop();
    },
  };
}
