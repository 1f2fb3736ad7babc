// POST /v1/payments with a fresh Idempotency-Key per request (service token with payments:write from the
// real /token) vs a bare Fastify route inserting one row in one transaction on the same PostgreSQL server.
import { randomUUID } from 'node:crypto';
import { basicAuth, postForm } from '../lib/http.js';
import { measure } from '../lib/measure.js';
import { ratioAtLeast } from '../lib/checks.js';
import { GATEHOUSE_DB } from '../lib/environment.js';
import type { Scenario, Subject } from './scenario.js';
import { gatehouseClient, requireCapability } from './subjects.js';

const BODY = JSON.stringify({ amount: '12.50', currency: 'EUR', account: 'acct-bench-0001' });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

export const payments: Scenario = {
  name: 'payments',
  title: 'POST /v1/payments with fresh Idempotency-Keys vs a bare one-row insert, same PostgreSQL',
  async run(context) {
    const server = await context.env.gatehouse('postgres');
    await requireCapability(server, 'token', 'POST /token (issue 3)');
    await requireCapability(server, 'payments', 'POST /v1/payments (issue 7)');
    const client = await gatehouseClient(server, { name: 'bench payments', grantTypes: ['client_credentials'], scope: 'payments:write' });
    const token = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'payments:write' },
      { authorization: basicAuth(client.id, client.secret) },
    );
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${String(token.access_token)}` };
    const probe = await fetch(`${server.url}/v1/payments`, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body: BODY });
    if (probe.status !== 201) throw new Error(`POST /v1/payments answered ${probe.status}: ${(await probe.text()).slice(0, 300)}`);

    const baseline = await context.env.baseline();
    const subjects: Subject[] = [
      {
        key: 'gatehouse-postgres',
        label: 'Gatehouse POST /v1/payments',
        role: 'gatehouse',
        server,
        statementsDatabase: GATEHOUSE_DB,
        load: async () => ({
          url: `${server.url}/v1/payments`,
          method: 'POST',
          headers,
          body: BODY,
          generate: () => ({ headers: { 'idempotency-key': randomUUID() } }),
          expectStatus: 201,
        }),
      },
      {
        key: 'baseline',
        label: 'bare one-row insert in a transaction',
        role: 'baseline',
        server: baseline,
        load: async () => ({ url: `${baseline.url}/rows`, method: 'POST', headers: JSON_HEADERS, body: BODY, expectStatus: 201 }),
      },
    ];
    const summaries = await measure(subjects, context.settings, context.env, context.log);
    const by = (key: string) => summaries.find((s) => s.key === key);
    return {
      subjects: summaries,
      unavailable: [],
      checks: ratioAtLeast('payments ÷ bare insert, req/s', by('gatehouse-postgres'), by('baseline'), 0.5),
      notes: ['the service token is repeated (verified-token cache); each request carries a new UUID Idempotency-Key'],
    };
  },
};
