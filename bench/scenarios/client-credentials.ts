// client_credentials at 64 connections: Gatehouse (PostgreSQL and PGlite) vs node-oidc-provider 9 vs a bare
// Fastify + jose ES256 route. Every side authenticates the client with client_secret_basic and returns an
// ES256 at+jwt access token for the API (checked by a probe before measuring).
import { assertEs256AccessToken, basicAuth, FORM, form, postForm } from '../lib/http.js';
import { measure } from '../lib/measure.js';
import { atMost, perCoreRatioAtLeast, ratioAtLeast } from '../lib/checks.js';
import type { ChildServer } from '../lib/child.js';
import { GATEHOUSE_DB, gatehouseLabel, type GatehouseKind } from '../lib/environment.js';
import type { Scenario, ScenarioContext, Subject, Unavailable } from './scenario.js';
import { gatehouseClient, requireCapability, unlessNotRunnable } from './subjects.js';

const SCOPE = 'users:read';

export function tokenSubject(key: string, label: string, role: Subject['role'], server: ChildServer, client: { id: string; secret: string }): Subject {
  const headers = { authorization: basicAuth(client.id, client.secret), 'content-type': FORM };
  const body = form({ grant_type: 'client_credentials', scope: SCOPE });
  return {
    key,
    label,
    role,
    server,
    async load() {
      return { url: `${server.url}/token`, method: 'POST', headers, body, expectStatus: 200 };
    },
  };
}

async function probe(subject: Subject, client: { id: string; secret: string }): Promise<void> {
  const json = await postForm(
    `${subject.server.url}/token`,
    { grant_type: 'client_credentials', scope: SCOPE },
    { authorization: basicAuth(client.id, client.secret) },
  );
  assertEs256AccessToken(subject.label, json.access_token);
}

/** Gatehouse on one database, with its client registered through the CLI command; NotRunnable until /token exists. */
export async function gatehouseTokenSubject(
  context: ScenarioContext,
  kind: GatehouseKind,
): Promise<{ subject: Subject; client: { id: string; secret: string } }> {
  const server = await context.env.gatehouse(kind);
  await requireCapability(server, 'token', 'POST /token (client_credentials, issue 3)');
  const client = await gatehouseClient(server, { name: 'bench client_credentials', grantTypes: ['client_credentials'], scope: SCOPE });
  const label = gatehouseLabel(kind);
  const subject = tokenSubject(`gatehouse-${kind}`, label, 'gatehouse', server, client);
  if (kind === 'postgres') subject.statementsDatabase = GATEHOUSE_DB;
  await probe(subject, client);
  return { subject, client };
}

export const clientCredentials: Scenario = {
  name: 'client-credentials',
  title: 'client_credentials token issuance (POST /token), 64 connections',
  async run(context) {
    const unavailable: Unavailable[] = [];
    const subjects: Subject[] = [];
    for (const kind of ['postgres', 'embedded'] as const) {
      const g = await unlessNotRunnable(`Gatehouse (${kind})`, unavailable, () => gatehouseTokenSubject(context, kind));
      if (g) subjects.push(g.subject);
    }
    const peerServer = await context.env.peer();
    const peerClient = (await peerServer.call<{ client: { id: string; secret: string } }>('info')).client;
    const peer = tokenSubject('peer', 'node-oidc-provider 9', 'peer', peerServer, peerClient);
    await probe(peer, peerClient);
    const baselineServer = await context.env.baseline();
    const baselineClient = (await baselineServer.call<{ client: { id: string; secret: string } }>('info')).client;
    const baseline = tokenSubject('baseline', 'bare Fastify + jose ES256', 'baseline', baselineServer, baselineClient);
    await probe(baseline, baselineClient);
    subjects.push(peer, baseline);

    const summaries = await measure(subjects, context.settings, context.env, context.log);
    const by = (key: string) => summaries.find((s) => s.key === key);
    const checks = [
      ...ratioAtLeast('Gatehouse (PostgreSQL) ÷ peer, req/s', by('gatehouse-postgres'), by('peer'), 2.0),
      ...ratioAtLeast('Gatehouse (embedded default) ÷ peer, req/s', by('gatehouse-embedded'), by('peer'), 2.0),
      ...perCoreRatioAtLeast('Gatehouse (PostgreSQL) ÷ peer, per core (req per CPU-second)', by('gatehouse-postgres'), by('peer'), 2.0),
      ...perCoreRatioAtLeast('Gatehouse (embedded default) ÷ peer, per core (req per CPU-second)', by('gatehouse-embedded'), by('peer'), 2.0),
      ...['gatehouse-postgres', 'gatehouse-embedded'].flatMap((k) => {
        const s = by(k);
        return s ? [atMost(`${s.label} p99`, s.median.p99, 25, 'ms')] : [];
      }),
    ];
    const figures = [
      ...ratioAtLeast('bare baseline ÷ peer', by('baseline'), by('peer'), 0).map((c) => ({ label: c.label, value: c.value, unit: '×' })),
      ...ratioAtLeast('Gatehouse (PostgreSQL) ÷ bare baseline', by('gatehouse-postgres'), by('baseline'), 0).map((c) => ({
        label: c.label,
        value: c.value,
        unit: '×',
      })),
    ];
    return { subjects: summaries, unavailable, checks, figures, notes: [] };
  },
};
