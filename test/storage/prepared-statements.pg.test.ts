// Named prepared statements on the PostgreSQL server (src/storage/driver/prepared-statements.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openPostgres, type Database } from '../../src/storage/driver/database.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';

let created: Awaited<ReturnType<typeof createPostgresDatabaseUrl>>;
let database: Database;

before(async () => {
  created = await createPostgresDatabaseUrl();
  // One connection, so the session-level view pg_prepared_statements is the one the statements ran on.
  database = await openPostgres(created.url, 1);
});
after(async () => {
  await database.close();
  await created.drop();
});

const preparedTexts = async () =>
  (await sql<{ statement: string }>`select statement from pg_prepared_statements where name like 'gh\\_%'`.execute(database.db)).rows.map((r) => r.statement);

test('a parameterised statement is prepared once per connection and reused; one without parameters is not', async () => {
  const lookup = () => sql<{ n: number }>`select ${41}::int + 1 as n`.execute(database.db);
  assert.equal((await lookup()).rows[0]!.n, 42);
  assert.equal((await lookup()).rows[0]!.n, 42);
  const texts = await preparedTexts();
  assert.equal(texts.filter((t) => t.includes('$1::int + 1')).length, 1);
  assert.ok(!texts.some((t) => t.includes('pg_prepared_statements')), 'statements without parameters stay unnamed');
});

test('a statement whose result columns changed under it (another instance migrated) is retried unnamed and answers', async () => {
  await sql`create table widgets (id int primary key)`.execute(database.db);
  await sql`insert into widgets values (1)`.execute(database.db);
  const read = () => sql<Record<string, unknown>>`select * from widgets where id = ${1}`.execute(database.db);
  assert.deepEqual((await read()).rows, [{ id: 1 }]);
  await sql`alter table widgets add column colour text default 'blue'`.execute(database.db);
  assert.deepEqual((await read()).rows, [{ id: 1, colour: 'blue' }]);
  assert.deepEqual((await read()).rows, [{ id: 1, colour: 'blue' }], 'and keeps answering, unnamed from then on');
});

test('DATABASE_PREPARED_STATEMENTS=false sends every statement unnamed (for poolers that cannot keep them)', async () => {
  const plain = await openPostgres(created.url, 1, { prepared: false });
  try {
    await sql`select ${7}::int as seven`.execute(plain.db);
    await sql`select ${7}::int as seven`.execute(plain.db);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(plain.db);
    assert.equal(rows[0]!.n, 0);
  } finally {
    await plain.close();
  }
});
