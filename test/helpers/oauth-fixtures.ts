// Clients for OAuth tests, written straight through the repository, and /token requests as a client sends them.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../src/clock.js';
import type { Db } from '../../src/storage/driver/database.js';
import { clientsRepository, type Client, type NewClient } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { sha256 } from '../../src/crypto/random.js';
import { pkcePair } from './pkce.js';

export const REDIRECT_URI = 'https://client.example/cb';

export interface ClientFixture {
  client: Client;
  /** Plain secret for confidential clients. */
  secret?: string;
}

export async function createClient(db: Db, clock: Clock, overrides: Partial<NewClient> = {}): Promise<ClientFixture> {
  const type = overrides.type ?? 'public';
  const secret = type === 'confidential' ? randomBytes(32).toString('base64url') : undefined;
  const client = await clientsRepository(db, clock).create({
    id: `client-${randomUUID()}`,
    name: 'Test client',
    type,
    secretHash: secret ? sha256(secret) : null,
    authMethod: type === 'confidential' ? 'client_secret_basic' : 'none',
    redirectUris: [REDIRECT_URI],
    postLogoutRedirectUris: [],
    grantTypes: ['authorization_code', 'refresh_token'],
    scopes: ['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'orders:read', 'users:read'],
    jwks: null,
    jwksUri: null,
    registrationPolicy: null,
    idTokenSignedResponseAlg: 'RS256',
    skipConsent: true,
    ...overrides,
  });
  return { client, ...(secret ? { secret } : {}) };
}

/** POST /token as the client would: Basic for confidential clients, client_id in the body for public ones. */
export async function postToken(
  baseUrl: string,
  fixture: ClientFixture,
  params: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form = new URLSearchParams(params);
  if (fixture.secret) {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(fixture.client.id)}:${encodeURIComponent(fixture.secret)}`).toString('base64')}`;
  } else {
    form.set('client_id', fixture.client.id);
  }
  const response = await fetch(`${baseUrl}/token`, { method: 'POST', headers, body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

/** Mints a code in-process (as the consent step would) and exchanges it at /token: a fresh grant's tokens. */
export async function codeGrantTokens(
  app: { url: string; core: import('../../src/oauth/codes/index.js').AuthorizationCodesDeps },
  fixture: ClientFixture,
  user: User,
  scope: string[],
  options: { authTime?: number } = {},
): Promise<Record<string, unknown>> {
  const { authorizationCodes } = await import('../../src/oauth/codes/index.js');
  const { verifier, challenge } = pkcePair();
  const code = await authorizationCodes(app.core).issue({
    clientId: fixture.client.id,
    redirectUri: REDIRECT_URI,
    codeChallenge: challenge,
    scope,
    userId: user.id,
    authTime: options.authTime ?? Math.floor(app.core.clock.now() / 1000),
  });
  const { status, body } = await postToken(app.url, fixture, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
  if (status !== 200) throw new Error(`code exchange failed: ${JSON.stringify(body)}`);
  return body;
}

export const refreshWith = (baseUrl: string, fixture: ClientFixture, refreshToken: string, extra: Record<string, string> = {}) =>
  postToken(baseUrl, fixture, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });
