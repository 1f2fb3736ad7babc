// Code exchange and refresh rotation on PostgreSQL and on the embedded default vs node-oidc-provider 9 (in-memory), same run.
// Pools: Gatehouse codes come from the real issuer (src/oauth/codes); Gatehouse refresh tokens are minted
// through the module APIs (code issued → redeemed → first refresh token of the family); the peer's codes
// and refresh tokens through its own models. Every request presents a value never used before.
import { measure } from '../lib/measure.js';
import { perCoreRatioAtLeast, ratioAtLeast } from '../lib/checks.js';
import { GATEHOUSE_DB } from '../lib/environment.js';
import type { Scenario, ScenarioContext, ScenarioOutcome, Subject, Unavailable } from './scenario.js';
import { unlessNotRunnable } from './subjects.js';
import { exchangeSubject, gatehouseSide, peerSide, probeExchange } from './user-grant.js';

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
  const peer = await peerSide(await context.env.peer());
  await probeExchange('peer', peer, kind);
  subjects.push(exchangeSubject('peer', 'node-oidc-provider 9 (memory)', 'peer', peer, kind));

  const summaries = await measure(subjects, context.settings, context.env, context.log);
  const by = (key: string) => summaries.find((s) => s.key === key);
  return {
    subjects: summaries,
    unavailable,
    checks: [
      ...ratioAtLeast('Gatehouse (PostgreSQL) ÷ peer, req/s', by('gatehouse-postgres'), by('peer'), target),
      ...ratioAtLeast('Gatehouse (embedded default) ÷ peer, req/s', by('gatehouse-embedded'), by('peer'), 1.0),
    ],
    figures: perCoreRatioAtLeast('Gatehouse ÷ peer per core (req per CPU-second; Gatehouse CPU excludes PostgreSQL)', by('gatehouse-postgres'), by('peer'), 0).map((c) => ({ label: c.label, value: c.value, unit: '×' })),
    notes: [
      kind === 'codes'
        ? 'codes minted before each run: Gatehouse through its real issuer (src/oauth/codes), the peer through its AuthorizationCode model'
        : 'refresh tokens minted before each run through module APIs: Gatehouse code issue → redeem → refreshTokens.issueFirst; the peer through its RefreshToken model',
      'sql/req = pg_stat_statements calls (including BEGIN/COMMIT) per request on the Gatehouse database',
    ],
  };
}

export const codeExchange: Scenario = {
  name: 'code-exchange',
  title: 'authorization_code exchange with PKCE (POST /token), pre-minted codes, PostgreSQL',
  run: (context) => exchangeScenario(context, 'codes', 1.5),
};

export const refreshRotation: Scenario = {
  name: 'refresh-rotation',
  title: 'refresh_token rotation (POST /token), a fresh refresh token per request, PostgreSQL',
  run: (context) => exchangeScenario(context, 'refresh', 1.5),
};
