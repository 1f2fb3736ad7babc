// Code exchange and refresh rotation on PostgreSQL and on the embedded default vs node-oidc-provider 9, in memory
// and on Redis, same run.
// Pools: Gatehouse codes come from the real issuer (src/oauth/codes); Gatehouse refresh tokens are minted
// through the module APIs (code issued → redeemed → first refresh token of the family); the peer's codes
// and refresh tokens through its own models. Every request presents a value never used before.
import { measure } from '../lib/measure.js';
import { ratioAtLeast } from '../lib/checks.js';
import { GATEHOUSE_DB } from '../lib/environment.js';
import type { Scenario, ScenarioContext, ScenarioOutcome, Subject, SubjectSummary, Unavailable } from './scenario.js';
import { unlessNotRunnable } from './subjects.js';
import { exchangeSubject, gatehouseSide, peerSide, probeExchange } from './user-grant.js';

/** Database-server CPU milliseconds per request (the issue-36 figure: PostgreSQL's share of a request). */
const dbCpuMsPerRequest = (s: SubjectSummary | undefined) =>
  s && s.median.dbCpuPercent !== undefined && s.median.rps > 0 ? Math.round((s.median.dbCpuPercent / 100 / s.median.rps) * 1000 * 1000) / 1000 : Number.NaN;

/** CPU milliseconds per request of the server and its database server together. */
const cpuMsPerRequest = (s: SubjectSummary | undefined) =>
  s && s.median.perCpuSecondWithDb > 0 ? Math.round((1000 / s.median.perCpuSecondWithDb) * 100) / 100 : Number.NaN;

async function exchangeScenario(context: ScenarioContext, kind: 'codes' | 'refresh', target: number): Promise<ScenarioOutcome> {
  const unavailable: Unavailable[] = [];
  const subjects: Subject[] = [];
  const gatehouse = await unlessNotRunnable('Gatehouse (PostgreSQL)', unavailable, async () => {
    const side = await gatehouseSide(await context.env.gatehouse('postgres'));
    await probeExchange('Gatehouse', side, kind);
    return exchangeSubject('gatehouse-postgres', 'Gatehouse (PostgreSQL)', 'gatehouse', side, kind, GATEHOUSE_DB);
  });
  if (gatehouse) subjects.push(gatehouse);
  // The embedded default (its own PostgreSQL server in DATA_DIR, durable commits): what most people run first.
  const embedded = await unlessNotRunnable('Gatehouse (embedded default)', unavailable, async () => {
    const side = await gatehouseSide(await context.env.gatehouse('embedded'));
    await probeExchange('Gatehouse (embedded default)', side, kind);
    return exchangeSubject('gatehouse-embedded', 'Gatehouse (embedded default)', 'gatehouse', side, kind);
  });
  if (embedded) subjects.push(embedded);
  const peer = await peerSide(await context.env.peer('memory'));
  await probeExchange('peer (memory)', peer, kind, { oldRefused: true });
  subjects.push(exchangeSubject('peer', 'node-oidc-provider 9 (memory)', 'peer', peer, kind));
  const peerRedis = await peerSide(await context.env.peer('redis'));
  await probeExchange('peer (Redis)', peerRedis, kind, { oldRefused: true });
  subjects.push(exchangeSubject('peer-redis', 'node-oidc-provider 9 (Redis)', 'peer', peerRedis, kind));

  const summaries = await measure(subjects, context.settings, context.env, context.log);
  const by = (key: string) => summaries.find((s) => s.key === key);
  const perCoreWithDb = (label: string, a: SubjectSummary | undefined, b: SubjectSummary | undefined) =>
    a && b ? [{ label, value: Math.round((a.median.perCpuSecondWithDb / b.median.perCpuSecondWithDb) * 100) / 100, unit: '×' }] : [];
  return {
    subjects: summaries,
    unavailable,
    // The target is against the peer as it runs in production: on Redis.
    checks: [
      ...ratioAtLeast('Gatehouse (PostgreSQL) ÷ peer (Redis), req/s', by('gatehouse-postgres'), by('peer-redis'), target),
      ...ratioAtLeast('Gatehouse (embedded default) ÷ peer (Redis), req/s', by('gatehouse-embedded'), by('peer-redis'), 1.0),
    ],
    figures: [
      ...ratioAtLeast('Gatehouse (PostgreSQL) ÷ peer (memory), req/s', by('gatehouse-postgres'), by('peer'), 0).map((c) => ({
        label: c.label,
        value: c.value,
        unit: '×',
      })),
      ...perCoreWithDb('Gatehouse ÷ peer (Redis) per CPU-second, each with its database server', by('gatehouse-postgres'), by('peer-redis')),
      ...perCoreWithDb('Gatehouse ÷ peer (memory) per CPU-second (Gatehouse with PostgreSQL)', by('gatehouse-postgres'), by('peer')),
      ...perCoreWithDb('Gatehouse (embedded default) ÷ peer (Redis) per CPU-second, each with its database server', by('gatehouse-embedded'), by('peer-redis')),
      ...[
        ['Gatehouse + PostgreSQL', by('gatehouse-postgres')],
        ['Gatehouse (embedded default) + its server', by('gatehouse-embedded')],
        ['peer (Redis) + redis-server', by('peer-redis')],
        ['peer (memory)', by('peer')],
      ].map(([label, s]) => ({ label: `CPU per request, ${label as string}`, value: cpuMsPerRequest(s as SubjectSummary | undefined), unit: 'ms' })),
      ...[
        ['PostgreSQL server', by('gatehouse-postgres')],
        ['embedded server', by('gatehouse-embedded')],
        ['redis-server', by('peer-redis')],
      ].map(([label, s]) => ({
        label: `database CPU per request (medians: db cpu % ÷ req/s), ${label as string}`,
        value: dbCpuMsPerRequest(s as SubjectSummary | undefined),
        unit: 'ms',
      })),
    ],
    notes: [
      kind === 'codes'
        ? 'codes minted before each run: Gatehouse through its real issuer (src/oauth/codes), the peer through its AuthorizationCode model'
        : 'refresh tokens minted before each run through module APIs: Gatehouse code issue → redeem with the hash of the first refresh token (as /token does); the peer through its RefreshToken model',
      'peer (Redis): its Redis adapter (bench/peer/redis-adapter.ts, atomic consume) on a throwaway redis-server, appendonly yes, appendfsync everysec',
      'db cpu % = PostgreSQL for Gatehouse, redis-server for the peer on Redis; sql/req = pg_stat_statements calls (including BEGIN/COMMIT) per request',
    ],
  };
}

export const codeExchange: Scenario = {
  name: 'code-exchange',
  title: 'authorization_code exchange with PKCE (POST /token), pre-minted codes, PostgreSQL and the embedded default',
  run: (context) => exchangeScenario(context, 'codes', 1.5),
};

export const refreshRotation: Scenario = {
  name: 'refresh-rotation',
  title: 'refresh_token rotation (POST /token), a fresh refresh token per request, PostgreSQL and the embedded default',
  run: (context) => exchangeScenario(context, 'refresh', 1.5),
};
