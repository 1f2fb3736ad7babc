// Fuzz properties for every /v1 route: hostile path segments, queries, bodies, content types and headers,
// with a valid token (all scopes) most of the time so requests get past authentication.
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { call, orderBody, shopTokens } from '../../helpers/shop.js';
import { PERMISSIVE_ENV } from '../helpers/world.js';
import {
  assertHealthy,
  checkAnswer,
  contentType,
  formOf,
  headerValue,
  hostileString,
  property,
  rawBody,
  rowCounts,
  runs,
  send,
  wellFormed,
  type Sent,
} from './harness.js';

const ALL_SCOPES = ['users:read', 'users:write', 'orders:read', 'orders:write', 'payments:write', 'reports:read', 'reports:write'];

/** [method, path template]; `{id}` is replaced by a real id, a hostile value or a random one. */
const ROUTES: Array<[string, string]> = [
  ['GET', '/v1/users/me'],
  ['GET', '/v1/users/{user}'],
  ['POST', '/v1/users'],
  ['PUT', '/v1/users/{user}'],
  ['PATCH', '/v1/users/{user}'],
  ['DELETE', '/v1/users/{user}'],
  ['POST', '/v1/orders'],
  ['GET', '/v1/orders'],
  ['GET', '/v1/orders/{order}'],
  ['POST', '/v1/orders/{order}/cancel'],
  ['POST', '/v1/orders/{order}/payment'],
  ['POST', '/v1/payments'],
  ['GET', '/v1/payments/{payment}'],
  ['POST', '/v1/reports'],
  ['GET', '/v1/reports/{report}'],
  ['OPTIONS', '/v1/orders'],
  ['HEAD', '/v1/orders'],
];
const QUERY = ['limit', 'offset', 'cursor', 'status', 'user_id', 'sort', 'access_token', 'version'] as const;
const HEADERS = [
  'accept',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'idempotency-key',
  'accept-encoding',
  'x-forwarded-for',
  'origin',
  'range',
] as const;

export function apiFuzzSuite(long: boolean): void {
  describe(`fuzz: resource API /v1${long ? ' (long)' : ''}`, () => {
    let t: TestApp;
    let token: string;
    let ids: Record<string, string>;
    before(async () => {
      t = await startTestApp({ env: PERMISSIVE_ENV });
      const user = await shopTokens(t.core).user(ALL_SCOPES);
      token = user.token;
      const order = await call(t.url, 'POST', '/v1/orders', { token, body: orderBody() });
      const payment = await call(t.url, 'POST', '/v1/payments', { token, key: crypto.randomUUID(), body: { amount: '1.00', currency: 'EUR', account: 'A' } });
      const report = await call(t.url, 'POST', '/v1/reports', { token, body: {} });
      ids = { user: user.sub, order: String(order.json?.id), payment: String(payment.json?.id), report: String(report.json?.id ?? 'none') };
    });
    after(async () => {
      await assertHealthy(t);
      await t.close();
    });

    const segment = fc.oneof(
      { weight: 2, arbitrary: fc.constant<string | null>(null) },
      { weight: 3, arbitrary: hostileString.map((s) => encodeURIComponent(wellFormed(s))) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '%',
          '%zz',
          '%C0%AF',
          '%ED%A0%80',
          '%00',
          '..',
          '.',
          '%2e%2e%2f',
          '00000000-0000-0000-0000-000000000000',
          '-1',
          '1'.repeat(300),
        ),
      },
      { weight: 1, arbitrary: fc.uuid() },
    );
    const query = formOf(QUERY).map((pairs) =>
      pairs.length ? `?${pairs.map(([k, v]) => `${encodeURIComponent(wellFormed(k))}=${encodeURIComponent(wellFormed(v))}`).join('&')}` : '',
    );
    const headers = fc.array(fc.tuple(fc.constantFrom(...HEADERS), headerValue), { maxLength: 4 });
    const auth = fc.oneof({ weight: 6, arbitrary: fc.constant<string | null>(null) }, { weight: 1, arbitrary: headerValue });
    const body = fc.oneof(
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
      {
        weight: 2,
        arbitrary: fc
          .record(
            {
              amount: fc.oneof(fc.double(), hostileString, fc.integer()),
              currency: fc.oneof(fc.constantFrom('EUR', 'JPY', 'eur'), hostileString),
              account: hostileString,
            },
            { requiredKeys: [] },
          )
          .map((v) => JSON.stringify(v)),
      },
      {
        weight: 2,
        arbitrary: fc
          .record(
            {
              username: hostileString,
              password: hostileString,
              name: fc.oneof(hostileString, fc.constant(null)),
              email: hostileString,
              address: fc.jsonValue({ maxDepth: 2 }),
            },
            { requiredKeys: [] },
          )
          .map((v) => JSON.stringify(v)),
      },
      {
        weight: 1,
        arbitrary: fc
          .record({
            currency: hostileString,
            items: fc.array(
              fc.record({ sku: hostileString, quantity: fc.oneof(fc.integer(), fc.double(), hostileString), unit_price: fc.oneof(hostileString, fc.double()) }),
              { maxLength: 3 },
            ),
          })
          .map((v) => JSON.stringify(v)),
      },
      { weight: 1, arbitrary: rawBody },
    );

    test('every /v1 route with hostile paths, queries, headers and bodies', async () => {
      const request = fc.record({
        route: fc.constantFrom(...ROUTES),
        segment,
        query,
        headers,
        auth,
        body: fc.option(body, { freq: 4 }),
        type: fc.option(contentType, { freq: 2 }),
      });
      await property(
        'v1 routes',
        request,
        async ({ route: [method, template], segment: seg, query: q, headers: extra, auth: authorization, body: b, type }) => {
          const path = template.replace(/\{(\w+)\}/, (_m, name: string) => seg ?? ids[name]!) + q;
          const h: Record<string, string> = Object.fromEntries(extra);
          h.authorization = authorization ?? `Bearer ${token}`;
          if (b !== null && method !== 'GET' && method !== 'HEAD')
            h['content-type'] = type ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
          const sent: Sent = { method, path, headers: h, ...(b !== null ? { body: b } : {}) };
          const before = await rowCounts(t);
          await checkAnswer(t, sent, await send(t, sent), 'problem', before);
        },
        runs(50, long),
      );
    });

    test('unknown paths and methods under /v1 answer problem+json', async () => {
      const request = fc.tuple(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'SEARCH'),
        fc.array(
          segment.map((s) => s ?? 'x'),
          { minLength: 1, maxLength: 4 },
        ),
      );
      await property(
        'v1 unknown',
        request,
        async ([method, segments]) => {
          const sent: Sent = { method, path: `/v1/${segments.join('/')}`, headers: { authorization: `Bearer ${token}` } };
          const answer = await send(t, sent);
          await checkAnswer(t, sent, answer, 'problem');
        },
        runs(20, long),
      );
    });
  });
}
