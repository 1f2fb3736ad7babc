// A running app with two users (U1, U2) and tokens minted by the real access-token issuer: a user token
// for each, a service (client_credentials-shaped) token, and helpers for JSON requests.
import { hashPassword } from '../../../src/crypto/passwords.js';
import { usersRepository, type User } from '../../../src/storage/repositories/users-repository.js';
import { accessTokenIssuer } from '../../../src/oauth/issued-tokens/access-tokens.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../../helpers/app.js';

export interface UsersFixture {
  t: TestApp;
  u1: User;
  u2: User;
  tokens: { u1: string; u2: string; u1ReadOnly: string; service: string; serviceReadOnly: string; noScope: string };
  api(path: string, init?: RequestInit & { token?: string | undefined }): Promise<Response>;
  createUser(username: string): Promise<User>;
}

export async function usersFixture(options: TestAppOptions = {}): Promise<UsersFixture> {
  const t = await startTestApp(options);
  const repo = usersRepository(t.core.db, t.core.clock);
  const passwordHash = await hashPassword('correct horse battery');
  const createUser = (username: string) => repo.create({ username, passwordHash, email: `${username}@example.com` });
  const [u1, u2] = [await createUser('u1'), await createUser('u2')];
  const issuer = accessTokenIssuer({ keys: t.core.keys, clock: t.core.clock, config: t.core.config });
  const authTime = Math.floor(t.core.clock.now() / 1000);
  const userToken = async (sub: string, scope: string[]) => (await issuer.issue({ sub, clientId: 'web-app', scope, authTime })).token;
  const serviceToken = async (scope: string[]) => (await issuer.issue({ sub: 'backend', clientId: 'backend', scope })).token;
  const tokens = {
    u1: await userToken(u1.id, ['openid', 'users:read', 'users:write']),
    u2: await userToken(u2.id, ['openid', 'users:read', 'users:write']),
    u1ReadOnly: await userToken(u1.id, ['users:read']),
    service: await serviceToken(['users:read', 'users:write']),
    serviceReadOnly: await serviceToken(['users:read']),
    noScope: await userToken(u1.id, ['openid']),
  };
  async function api(path: string, init: RequestInit & { token?: string | undefined } = {}) {
    const headers = new Headers(init.headers);
    const token = 'token' in init ? init.token : tokens.u1;
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(`${t.url}${path}`, { ...init, headers });
  }
  return { t, u1, u2, tokens, api, createUser };
}

export const json = (body: unknown, method = 'POST', contentType = 'application/json'): RequestInit => ({
  method,
  headers: { 'content-type': contentType },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

export async function problemOf(res: Response): Promise<{ code: string; errors?: { field: string; message: string }[]; status: number }> {
  if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? ''))
    throw new Error(`not a problem: ${res.status} ${res.headers.get('content-type')}`);
  return (await res.json()) as { code: string; status: number };
}
