// GET /v1/orders: a cursor page at depth 900,000 of 1,000,000 orders vs page 1 (target ≤ 1.5× the cost),
// with the offset page at the same depth for contrast. Quick mode seeds 20,000 orders (depth 18,000).
//
// Seeding is two `insert … select generate_series` statements, and the deep cursor comes from the API
// itself, not from the codec's internals: first the oldest block is inserted and page 1 (then the only
// rows) hands out a cursor after its 20th row; then the newer rows are inserted in front of it, so that
// same cursor now points `depth` rows deep. A probe checks the page really starts at that depth.
import { basicAuth, postForm } from '../lib/http.js';
import { measure } from '../lib/measure.js';
import { ratioAtMost } from '../lib/checks.js';
import { GATEHOUSE_DB } from '../lib/environment.js';
import type { ChildServer } from '../lib/child.js';
import type { Scenario, Subject } from './scenario.js';
import { gatehouseClient, requireCapability } from './subjects.js';

const LIMIT = 20;

function seedStatement(from: number, to: number, userId: string): { text: string; params: unknown[] } {
  // created_at falls one millisecond per row, so row g sits at depth g - 1 (newest first).
  return {
    text: `insert into orders (user_id, status, currency, total_minor, items, created_at, updated_at)
           select $1, 'pending', 'EUR', 1250, '[{"sku":"bench-sku","quantity":1,"unit_price_minor":1250}]'::jsonb,
                  timestamptz '2026-01-01T00:00:00Z' - g * interval '1 millisecond',
                  timestamptz '2026-01-01T00:00:00Z' - g * interval '1 millisecond'
           from generate_series($2::int, $3::int) as g`,
    params: [userId, from, to],
  };
}

async function getJson(url: string, authorization: string): Promise<{ data: { id: string }[]; pagination: { next_cursor: string | null } }> {
  const res = await fetch(url, { headers: { authorization } });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as { data: { id: string }[]; pagination: { next_cursor: string | null } };
}

async function seed(server: ChildServer, total: number, depth: number, authorization: string, log: (m: string) => void): Promise<string> {
  const sql = (q: { text: string; params: unknown[] }) => server.call<Record<string, unknown>[]>('sql', q);
  const [{ n } = { n: 0 }] = (await sql({ text: 'select count(*)::int as n from orders', params: [] })) as { n: number }[];
  if (n !== 0) throw new Error(`orders is not empty (${n} rows): the depth would be wrong`);
  const started = performance.now();
  await sql(seedStatement(depth - LIMIT + 1, total, 'bench-orders-user'));
  const first = await getJson(`${server.url}/v1/orders?limit=${LIMIT}`, authorization);
  const cursor = first.pagination.next_cursor;
  if (!cursor) throw new Error('page 1 of the oldest block returned no next_cursor');
  await sql(seedStatement(1, depth - LIMIT, 'bench-orders-user'));
  await sql({ text: 'analyze orders', params: [] });
  log(`  seeded ${total} orders in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return cursor;
}

export const ordersCursor: Scenario = {
  name: 'orders-cursor',
  title: 'GET /v1/orders: cursor page at depth 900k of 1M vs page 1 (offset at the same depth for contrast), PostgreSQL',
  async run(context) {
    const total = context.settings.quick ? 20_000 : 1_000_000;
    const depth = context.settings.quick ? 18_000 : 900_000;
    const server = await context.env.gatehouse('postgres');
    await requireCapability(server, 'token', 'POST /token (issue 3)');
    await requireCapability(server, 'orders', 'GET /v1/orders (issue 7)');
    const client = await gatehouseClient(server, { name: 'bench orders', grantTypes: ['client_credentials'], scope: 'orders:read' });
    const token = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { authorization: basicAuth(client.id, client.secret) },
    );
    const authorization = `Bearer ${String(token.access_token)}`;
    const cursor = await seed(server, total, depth, authorization, context.log);

    const [expected] = await server.call<{ id: string }[]>('sql', {
      text: 'select id from orders order by created_at desc, id desc offset $1 limit 1',
      params: [depth],
    });
    const deep = `${server.url}/v1/orders?limit=${LIMIT}&cursor=${encodeURIComponent(cursor)}`;
    const offset = `${server.url}/v1/orders?limit=${LIMIT}&offset=${depth}`;
    for (const url of [deep, offset]) {
      const page = await getJson(url, authorization);
      if (page.data[0]?.id !== expected?.id) throw new Error(`${url} does not start at depth ${depth} (got ${page.data[0]?.id}, expected ${expected?.id})`);
    }

    const page = (key: string, label: string, url: string, connections?: number): Subject => ({
      key,
      label,
      role: 'gatehouse',
      server,
      statementsDatabase: GATEHOUSE_DB,
      ...(connections ? { connections } : {}),
      load: async () => ({ url, headers: { authorization }, expectStatus: 200 }),
    });
    const subjects = [
      page('page1', 'page 1 (cursor style)', `${server.url}/v1/orders?limit=${LIMIT}`),
      page('deep-cursor', `cursor page at depth ${depth}`, deep),
      // Each offset request walks `depth` index entries; 8 connections keep it from timing out.
      page('deep-offset', `offset page at depth ${depth} (8 conns)`, offset, 8),
    ];
    const summaries = await measure(subjects, context.settings, context.env, context.log);
    const by = (key: string) => summaries.find((s) => s.key === key)!;
    return {
      subjects: summaries,
      unavailable: [],
      checks: [ratioAtMost('page 1 ÷ deep cursor page, req/s (cost of depth)', by('page1').median.rps / by('deep-cursor').median.rps, 1.5)],
      figures: [
        { label: 'page 1 ÷ offset page at the same depth (contrast)', value: by('page1').median.rps / by('deep-offset').median.rps, unit: '×' },
        { label: 'p50 deep cursor ÷ p50 page 1', value: by('deep-cursor').median.p50 / Math.max(by('page1').median.p50, 0.001), unit: '×' },
      ],
      notes: [`${total} orders of one user, listed with a service token (orders:read); limit ${LIMIT}`],
    };
  },
};
