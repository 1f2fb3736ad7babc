// Set-up for the scenarios that exchange codes or refresh tokens: on Gatehouse a user (CLI `users create`)
// and a confidential client_secret_basic client registered for authorization_code + refresh_token; on the
// peer its configured client. Both sides grant `openid offline_access users:read` for the API audience, so
// every exchange returns an ES256 access token, a refresh token and an RS256 id_token.
import { createHash, randomBytes } from 'node:crypto';
import type { ChildServer } from '../lib/child.js';
import { basicAuth, FORM, form, postForm, assertEs256AccessToken } from '../lib/http.js';
import type { Subject } from './scenario.js';
import { gatehouseClient, requireCapability, type ClientCredentials } from './subjects.js';

// BENCH_GRANT_SCOPE (e.g. 'offline_access users:read') measures the same exchanges without an id_token on either side.
export const GRANT_SCOPE = process.env.BENCH_GRANT_SCOPE ?? 'openid offline_access users:read';
export const REDIRECT_URI = 'http://127.0.0.1/callback';
export const VERIFIER = randomBytes(32).toString('base64url');
export const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

export interface Side {
  server: ChildServer;
  client: ClientCredentials;
  /** Gatehouse: the user id; peer: the account id. */
  sub: string;
  redirectUri: string;
  /** Mints `count` single-use codes, or refresh tokens, for this side's client and user. */
  mint(kind: 'codes' | 'refresh', count: number): Promise<string[]>;
}

export async function gatehouseSide(server: ChildServer): Promise<Side> {
  await requireCapability(server, 'token', 'POST /token (issue 3)');
  const user = await server.call<{ id: string }>('command', {
    name: 'users create',
    args: ['--username', `bench-${randomBytes(4).toString('hex')}`, '--password', 'bench-password-1'],
  });
  const client = await gatehouseClient(server, {
    name: 'bench code flow',
    grantTypes: ['authorization_code', 'refresh_token'],
    scope: GRANT_SCOPE,
    redirectUri: REDIRECT_URI,
  });
  const input = {
    clientId: client.id,
    redirectUri: REDIRECT_URI,
    codeChallenge: CHALLENGE,
    scope: GRANT_SCOPE.split(' '),
    userId: user.id,
    authTime: Math.floor(Date.now() / 1000),
  };
  return {
    server,
    client,
    sub: user.id,
    redirectUri: REDIRECT_URI,
    mint: (kind, count) => server.call<string[]>(kind === 'codes' ? 'mintCodes' : 'mintRefreshTokens', { count, input }),
  };
}

export async function peerSide(server: ChildServer): Promise<Side> {
  const info = await server.call<{ client: { id: string; secret: string; redirectUri: string } }>('info');
  const sub = 'bench-user';
  return {
    server,
    client: info.client,
    sub,
    redirectUri: info.client.redirectUri,
    mint: (kind, count) =>
      server.call<string[]>(kind === 'codes' ? 'mintCodes' : 'mintRefreshTokens', { count, sub, scope: GRANT_SCOPE, codeChallenge: CHALLENGE }),
  };
}

const codeFields = (side: Side, code: string) => ({ grant_type: 'authorization_code', code, redirect_uri: side.redirectUri, code_verifier: VERIFIER });
const refreshFields = (token: string) => ({ grant_type: 'refresh_token', refresh_token: token });

/**
 * One exchange through real HTTP before measuring: the response must carry the same three tokens on both
 * sides, and a refresh must rotate — a new refresh token in the answer; with `oldRefused` (the peer, whose
 * default would keep the token) the presented one is then refused, so the peer does the same single-use work.
 */
export async function probeExchange(label: string, side: Side, kind: 'codes' | 'refresh', { oldRefused = false } = {}): Promise<void> {
  const [value] = await side.mint(kind, 1);
  const fields = kind === 'codes' ? codeFields(side, value!) : refreshFields(value!);
  const authorization = basicAuth(side.client.id, side.client.secret);
  const json = await postForm(`${side.server.url}/token`, fields, { authorization });
  assertEs256AccessToken(label, json.access_token);
  if (typeof json.refresh_token !== 'string' || (GRANT_SCOPE.split(' ').includes('openid') && typeof json.id_token !== 'string')) {
    throw new Error(`${label}: expected refresh_token and id_token in ${Object.keys(json).join(', ')}`);
  }
  if (kind !== 'refresh') return;
  if (json.refresh_token === value) throw new Error(`${label}: the refresh token was not rotated`);
  if (oldRefused) {
    const again = await postForm(`${side.server.url}/token`, fields, { authorization }, 400);
    if (again.error !== 'invalid_grant') throw new Error(`${label}: a rotated refresh token presented again answered ${JSON.stringify(again)}`);
  }
}

/** A subject whose every request carries a fresh single-use value from a pool minted right before the run. */
export function exchangeSubject(
  key: string,
  label: string,
  role: Subject['role'],
  side: Side,
  kind: 'codes' | 'refresh',
  statementsDatabase?: string,
): Subject {
  const headers = { authorization: basicAuth(side.client.id, side.client.secret), 'content-type': FORM };
  return {
    key,
    label,
    role,
    server: side.server,
    initialRate: 500,
    ...(statementsDatabase ? { statementsDatabase } : {}),
    async load(run) {
      const count = Math.ceil(run.expectedRate * run.seconds * 1.2) + run.connections;
      const values = await side.mint(kind, count);
      const pool = values.map((v) => ({ body: form(kind === 'codes' ? codeFields(side, v) : refreshFields(v)) }));
      return { url: `${side.server.url}/token`, method: 'POST', headers, pool, expectStatus: 200 };
    },
  };
}
