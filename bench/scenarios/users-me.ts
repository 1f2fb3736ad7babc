// GET /v1/users/me with a bearer token vs the same handler mounted without authentication (the /v1 plugin
// mounted again with a verify-nothing authenticator, servers/gatehouse-bench-routes.ts), on PostgreSQL.
// Repeated token: the verified-token cache path. Fresh token per request: every request is a cache miss
// (full ES256 verification + revocation lookup). A bare Fastify route reading the same row gives context.
import { measure } from '../lib/measure.js';
import { ratioAtLeast } from '../lib/checks.js';
import { GATEHOUSE_DB } from '../lib/environment.js';
import { NotRunnable } from '../lib/not-runnable.js';
import type { Scenario, Subject, Unavailable } from './scenario.js';
import { capabilities, requireCapability } from './subjects.js';
import { gatehouseSide } from './user-grant.js';

const SCOPE = ['users:read'];

export const usersMe: Scenario = {
  name: 'users-me',
  title: 'GET /v1/users/me: bearer token vs the same handler unauthenticated, PostgreSQL',
  async run(context) {
    const unavailable: Unavailable[] = [];
    const server = await context.env.gatehouse('postgres');
    await requireCapability(server, 'usersMe', 'GET /v1/users/me (issue 6)');
    if (!(await capabilities(server)).benchUsersMe) throw new NotRunnable('the /v1 plugin (src/api/version.ts apiVersion) cannot be mounted unauthenticated');
    const side = await gatehouseSide(server);
    const tokenInput = { sub: side.sub, clientId: side.client.id, scope: SCOPE, authTime: Math.floor(Date.now() / 1000) };
    const issue = (count: number) => server.call<string[]>('issueAccessTokens', { count, input: tokenInput });
    await server.call('setBenchPrincipal', { kind: 'user', sub: side.sub, clientId: side.client.id, scopes: SCOPE });
    const [repeated] = await issue(1);

    const probe = async (path: string, authorization: string) => {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization } });
      const body = (await res.json()) as { id?: string };
      if (res.status !== 200 || body.id !== side.sub) throw new Error(`GET ${path} answered ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    };
    await probe('/v1/users/me', `Bearer ${repeated}`);
    await probe('/bench-unauthenticated/v1/users/me', 'Bearer not-checked');

    const fixed = (key: string, label: string, role: Subject['role'], url: string, authorization?: string, on = server): Subject => ({
      key,
      label,
      role,
      server: on,
      statementsDatabase: GATEHOUSE_DB,
      load: async () => ({ url, headers: authorization ? { authorization } : ({} as Record<string, string>), expectStatus: 200 }),
    });
    const subjects: Subject[] = [
      fixed('token', 'Gatehouse, repeated token', 'gatehouse', `${server.url}/v1/users/me`, `Bearer ${repeated}`),
      fixed('unauthenticated', 'same handler, unauthenticated', 'baseline', `${server.url}/bench-unauthenticated/v1/users/me`, 'Bearer not-checked'),
      {
        key: 'fresh',
        label: 'Gatehouse, fresh token (cache miss)',
        role: 'gatehouse',
        server,
        statementsDatabase: GATEHOUSE_DB,
        initialRate: 1_500,
        async load(run) {
          const tokens = await issue(Math.ceil(run.expectedRate * run.seconds * 1.2) + run.connections);
          return { url: `${server.url}/v1/users/me`, pool: tokens.map((t) => ({ headers: { authorization: `Bearer ${t}` } })), expectStatus: 200 };
        },
      },
    ];
    const baseline = await context.env.baseline();
    if ((await baseline.call<{ usersMe: boolean }>('info')).usersMe) {
      const bare = fixed(
        'bare',
        'bare Fastify, same row, no auth',
        'baseline',
        `${baseline.url}/users/me?id=${encodeURIComponent(side.sub)}`,
        undefined,
        baseline,
      );
      delete bare.statementsDatabase;
      subjects.push(bare);
    }

    const summaries = await measure(subjects, context.settings, context.env, context.log);
    const by = (key: string) => summaries.find((s) => s.key === key);
    const fresh = by('fresh');
    return {
      subjects: summaries,
      unavailable,
      checks: ratioAtLeast('repeated token ÷ unauthenticated, req/s', by('token'), by('unauthenticated'), 0.85),
      figures: [
        ...(fresh ? [{ label: 'cache-miss rate (fresh token per request)', value: fresh.median.rps, unit: 'req/s' }] : []),
        ...ratioAtLeast('fresh token ÷ unauthenticated', fresh, by('unauthenticated'), 0).map((c) => ({ label: c.label, value: c.value, unit: '×' })),
      ],
      notes: ['tokens are real ES256 at+jwt access tokens from the access-token issuer module (sub = a user created with `users create`)'],
    };
  },
};
