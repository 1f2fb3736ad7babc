// The security suite's fixtures as one running server: clients A (client_secret_basic), B (client_secret_post),
// P (public), C (secret containing `: + % / = space`), users U1 and U2 with passwords, and helpers that
// walk the real browser flow (authorize → login → consent) and exchange the code over real HTTP.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp, type TestAppOptions } from '../../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from '../../oauth/fixtures.js';
import { loginAndConsent } from '../../interaction/browserless.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { pkcePair } from '../../helpers/pkce.js';
import { Browser } from '../../helpers/browser.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';

export const REG = 'https://client.example/cb';
export const REG_Q = 'https://client.example/cb2?x=1';
export const C_SECRET = 'se:cr+et%2F/with=some space and more';
const USER_SCOPES = 'openid offline_access profile email address phone users:read orders:read orders:write payments:write';

export interface World {
  t: TestApp;
  url: string;
  A: RegisteredClient;
  B: RegisteredClient;
  P: RegisteredClient;
  C: RegisteredClient;
  U1: User;
  U2: User;
  close(): Promise<void>;
}

/**
 * Abuse limits are high and event-loop shedding is off by default: these files probe many negative cases
 * from one IP on a shared, slow machine. 16-rate-limiting.test.ts runs with the real limits.
 */
export const PERMISSIVE_ENV: Record<string, string> = {
  OVERLOAD_MAX_EVENT_LOOP_DELAY: '0',
  RATE_LIMIT_CLIENT_AUTH_FAILURES: '100000',
  RATE_LIMIT_LOGIN_FAILURES: '100000',
  RATE_LIMIT_INTROSPECTION: '100000',
  RATE_LIMIT_ANONYMOUS: '100000',
  RATE_LIMIT_PAGES: '100000',
  RATE_LIMIT_TOKEN: '100000',
  RATE_LIMIT_API: '100000',
};

export async function startWorld(options: TestAppOptions = {}): Promise<World> {
  const t = await startTestApp({ ...options, env: { ...PERMISSIVE_ENV, ...options.env } });
  const code = { grant_types: ['authorization_code', 'refresh_token'], redirect_uris: [REG, REG_Q], scope: USER_SCOPES };
  const A = await registerClient(t.core, { ...code, client_name: 'Client A' }, { skipConsent: false });
  const B = await registerClient(t.core, { ...code, client_name: 'Client B', token_endpoint_auth_method: 'client_secret_post' }, { skipConsent: false });
  const P = await registerClient(t.core, { ...code, client_name: 'Client P', token_endpoint_auth_method: 'none' }, { skipConsent: false });
  const C = await registerClient(
    t.core,
    { ...code, client_name: 'Client C', grant_types: ['authorization_code', 'refresh_token', 'client_credentials'] },
    { secret: C_SECRET, skipConsent: false },
  );
  const U1 = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const U2 = await createUser(t.core.db, t.core.clock, SIGN_IN);
  return { t, url: t.url, A, B, P, C, U1, U2, close: () => t.close() };
}

export function authorizeUrl(clientId: string, params: Record<string, string | undefined> = {}, challenge = pkcePair().challenge): string {
  const q = new URLSearchParams();
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REG,
    scope: 'openid',
    state: `S-${randomBytes(6).toString('hex')}`,
    nonce: `N-${randomBytes(6).toString('hex')}`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) q.append(k, v);
  return `/authorize?${q}`;
}

export interface Authorized {
  location: URL;
  code: string;
  verifier: string;
  browser: Browser;
}

/** The browser half: log in as `user` (and consent), returning the redirect back to the client. */
export async function authorize(
  w: World,
  client: RegisteredClient,
  params: Record<string, string | undefined> = {},
  { user = w.U1, browser = new Browser(w.url) }: { user?: User; browser?: Browser } = {},
): Promise<Authorized> {
  const p = pkcePair();
  const location = await loginAndConsent(browser, authorizeUrl(client.id, params, p.challenge), user);
  return { location, code: location.searchParams.get('code') ?? '', verifier: p.verifier, browser };
}

export type Auth = 'basic' | 'post' | 'none';

export function clientAuth(client: RegisteredClient, how: Auth = defaultAuth(client)): { headers: Record<string, string>; form: Record<string, string> } {
  if (how === 'basic') return { headers: { authorization: basicAuth(client.id, client.secret) }, form: {} };
  if (how === 'post') return { headers: {}, form: { client_id: client.id, client_secret: client.secret } };
  return { headers: {}, form: { client_id: client.id } };
}

export const defaultAuth = (client: RegisteredClient): Auth =>
  client.client.authMethod === 'client_secret_post' ? 'post' : client.client.authMethod === 'none' ? 'none' : 'basic';

/** POST /token (form) as `client`. */
export function token(w: World, client: RegisteredClient, params: Record<string, string>, how?: Auth) {
  const auth = clientAuth(client, how);
  return postForm(`${w.url}/token`, { ...auth.form, ...params }, auth.headers);
}

export const exchange = (w: World, client: RegisteredClient, a: Authorized, extra: Record<string, string> = {}) =>
  token(w, client, { grant_type: 'authorization_code', code: a.code, redirect_uri: REG, code_verifier: a.verifier, ...extra });

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
}

/** Full flow to tokens for `client` and `user`. */
export async function tokensFor(w: World, client: RegisteredClient, params: Record<string, string | undefined> = {}, user?: User): Promise<Tokens> {
  const a = await authorize(w, client, { scope: 'openid offline_access profile', prompt: 'consent', ...params }, user ? { user } : {});
  const r = await exchange(w, client, a);
  assert.equal(r.status, 200, r.text);
  return r.body as unknown as Tokens;
}

export const bearer = (w: World, path: string, accessToken: string, init: RequestInit = {}) =>
  fetch(`${w.url}${path}`, { ...init, headers: { authorization: `Bearer ${accessToken}`, ...(init.headers as Record<string, string> | undefined) } });

/** RFC 6749 5.2 token error: status, JSON body with a registered code, no-store. */
export function assertTokenError(
  r: { status: number; headers: Headers; body: Record<string, unknown>; text: string },
  error: string | string[],
  status?: number,
): void {
  const errors = Array.isArray(error) ? error : [error];
  assert.ok(errors.includes(String(r.body.error)), `expected ${errors.join('|')}, got ${r.status} ${r.text}`);
  assert.equal(r.status, status ?? (r.body.error === 'invalid_client' ? 401 : 400));
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(r.headers.get('cache-control'), 'no-store');
}
