// GET /admin/v1/users?attribute=NAME:VALUE (docs/admin-api.md, "Users"): the console's search by custom
// attribute, answered by the GIN index of migration 0490. Real HTTP, real PostgreSQL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { manualClock } from '../../src/clock.js';
import type { AdminFixture } from './fixture.js';
import { problemOf } from './fixture.js';
import { startUsersFixture, uniqueName, usersApi, type UserBody } from './users-fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  ({ f } = await startUsersFixture(clock));
});
after(() => f.t.close());
const { create } = usersApi(() => f);

async function found(query: string): Promise<string[]> {
  const res = await f.api(`/admin/v1/users?${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { data: UserBody[] }).data.map((u) => u.id).sort();
}

test('attribute=NAME:VALUE finds users whose attribute equals the value or is an array holding it, and no one else', async () => {
  const team = uniqueName('team');
  const equal = await create({ attributes: { team } });
  const inArray = await create({ attributes: { team: ['other', team] } });
  await create({ attributes: { team: `${team}-not` } });
  await create({ attributes: { squad: team } });
  assert.deepEqual(await found(`attribute=${encodeURIComponent(`team:${team}`)}`), [equal.body.id, inArray.body.id].sort());
});

test('a value that reads as a number or boolean also matches the typed value (the CLI stores 3 as a number)', async () => {
  const tag = uniqueName('lvl').replace(/-/g, '_');
  const number = await create({ attributes: { [tag]: 3 } });
  const text = await create({ attributes: { [tag]: '3' } });
  const flag = await create({ attributes: { [tag]: true } });
  assert.deepEqual(await found(`attribute=${tag}:3`), [number.body.id, text.body.id].sort());
  assert.deepEqual(await found(`attribute=${tag}:true`), [flag.body.id]);
});

test('the attribute search combines with q (both hold), and a value with a colon keeps it', async () => {
  const stem = uniqueName('combo');
  const both = await create({ username: `${stem}-a`, attributes: { site: 'https://a.example:8443' } });
  await create({ username: uniqueName('elsewhere'), attributes: { site: 'https://a.example:8443' } });
  await create({ username: `${stem}-b`, attributes: { site: 'https://b.example' } });
  assert.deepEqual(await found(`q=${stem}&attribute=${encodeURIComponent('site:https://a.example:8443')}`), [both.body.id]);
});

test('a malformed attribute search is 400 naming the parameter: no colon, an empty or reserved name, too long', async () => {
  for (const bad of ['team', ':blue', 'sub:x', 'bad name:x', `team:${'x'.repeat(1001)}`]) {
    const res = await f.api(`/admin/v1/users?attribute=${encodeURIComponent(bad)}`);
    assert.equal(res.status, 400, `${bad.slice(0, 20)}: ${await res.clone().text()}`);
    const problem = (await problemOf(res)) as { errors?: { field: string }[] };
    assert.ok(JSON.stringify(problem).includes('attribute'), bad.slice(0, 20));
  }
});

test('a cursor is bound to its attribute search', async () => {
  const team = uniqueName('paged');
  for (let i = 0; i < 3; i++) await create({ attributes: { team } });
  const first = (await (await f.api(`/admin/v1/users?attribute=team:${team}&limit=2`)).json()) as { pagination: { next_cursor: string } };
  const next = await f.api(`/admin/v1/users?attribute=team:${team}&limit=2&cursor=${encodeURIComponent(first.pagination.next_cursor)}`);
  assert.equal(((await next.json()) as { data: unknown[] }).data.length, 1);
  const other = await f.api(`/admin/v1/users?attribute=team:other&cursor=${encodeURIComponent(first.pagination.next_cursor)}`);
  assert.equal((await problemOf(other)).code, 'invalid-cursor');
});

test('the attribute search is answered by the users_attributes index, not a scan of every user', async () => {
  await f.t.core.db.transaction().execute(async (tx) => {
    // A small test table would be scanned anyway: forbid the scan to see that the index can answer it.
    await sql`set local enable_seqscan = off`.execute(tx);
    const plan = await sql<{
      'QUERY PLAN': string;
    }>`explain select id from users where attributes @> ${JSON.stringify({ team: 'blue' })}::jsonb or attributes @> ${JSON.stringify({ team: ['blue'] })}::jsonb`.execute(
      tx,
    );
    assert.match(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), /users_attributes/);
  });
});
