// What the grants, sessions and consents tests share: a user with a real grant (code redeemed at /token,
// so a refresh token and an access token for /v1), and the If-Match DELETE helper.
import assert from 'node:assert/strict';
import type { AdminFixture } from './fixture.js';
import { codeGrantTokens, createClient, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { createUser } from '../helpers/users.js';
import type { User } from '../../src/storage/repositories/users-repository.js';

export interface UserWithGrant {
  user: User;
  client: ClientFixture;
  accessToken: string;
  refreshToken: string;
}

export async function userWithGrant(f: AdminFixture, existing?: { user?: User; client?: ClientFixture }): Promise<UserWithGrant> {
  const user = existing?.user ?? (await createUser(f.t.core.db, f.t.core.clock));
  const client = existing?.client ?? (await createClient(f.t.core.db, f.t.core.clock, { type: 'confidential' }));
  const tokens = await codeGrantTokens(f.t, client, user, ['openid', 'offline_access', 'orders:read']);
  return { user, client, accessToken: String(tokens.access_token), refreshToken: String(tokens.refresh_token) };
}

export async function readEtag(f: AdminFixture, path: string): Promise<string> {
  const res = await f.api(path);
  assert.equal(res.status, 200, await res.clone().text());
  return res.headers.get('etag')!;
}

export const del = (f: AdminFixture, path: string, etag?: string) => f.api(path, { method: 'DELETE', headers: etag ? { 'if-match': etag } : {} });
