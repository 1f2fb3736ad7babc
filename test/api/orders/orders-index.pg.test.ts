// The keyset query behind GET /v1/orders walks an index from the cursor: a page 19,000 rows deep reads
// about as many index entries as page 1 (no sort, no rows skipped), for all orders and for one user's.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Database } from '../../../src/storage/driver/database.js';
import { createTestDatabase } from '../../helpers/database.js';

let database: Database;
before(async () => {
  database = await createTestDatabase();
  await sql`
    insert into orders (user_id, currency, total_minor, items, created_at, updated_at)
    select case when i % 2 = 0 then 'user-a' else 'user-b' end, 'EUR', i, '[]'::jsonb,
           timestamptz '2025-01-01' + (i / 3) * interval '1 second', now()
    from generate_series(1, 40000) as i`.execute(database.db);
  await sql`analyze orders`.execute(database.db);
});
after(() => database.close());

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

async function plan(userId: string | null, depth: number) {
  const userFilter = userId ? sql`and user_id = ${userId}` : sql``;
  const {
    rows: [cursor],
  } = await sql<{ created_at: Date; id: string }>`
    select created_at, id from orders where true ${userFilter} order by created_at desc, id desc offset ${depth} limit 1`.execute(database.db);
  const { rows } = await sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>`
    explain (analyze, buffers, format json)
    select * from orders where (created_at, id) < (${cursor!.created_at}, ${cursor!.id}) ${userFilter}
    order by created_at desc, id desc limit 21`.execute(database.db);
  return rows[0]!['QUERY PLAN'][0].Plan;
}

const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];
const blocks = (p: PlanNode) => (p['Shared Hit Blocks'] ?? 0) + (p['Shared Read Blocks'] ?? 0);

for (const userId of [null, 'user-a']) {
  test(`a deep keyset page${userId ? ' of one user' : ''} is an index scan without a sort and touches about as many blocks as page 1`, async () => {
    const shallow = await plan(userId, 20);
    const deep = await plan(userId, 19_000);
    for (const p of [shallow, deep]) {
      const all = nodes(p);
      assert.ok(
        all.some((n) => n['Node Type'] === 'Index Scan' && /^orders_(user_)?created_at_id$/.test(n['Index Name'] ?? '')),
        JSON.stringify(all.map((n) => n['Node Type'])),
      );
      assert.ok(!all.some((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Seq Scan'));
    }
    assert.ok(blocks(deep) <= blocks(shallow) * 1.5 + 4, `deep ${blocks(deep)} blocks vs page 1 ${blocks(shallow)}`);
  });
}
