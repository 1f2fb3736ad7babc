// Requests against /admin/v1/users shared by the admin users tests (not a test file itself). `fixture`
// returns the running admin fixture, which the test file starts in its own before().
import assert from 'node:assert/strict';
import type { Clock } from '../../src/clock.js';
import { createClient, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { adminFixture, createBody, type AdminFixture } from './fixture.js';

export const PASSWORD = 'a long enough password';
export type UserBody = Record<string, unknown> & { id: string; username: string };

let counter = 0;
export const uniqueName = (stem = 'user') => `${stem}-${Date.now().toString(36)}-${counter++}`;

/** The admin fixture on `clock`, and an OAuth client whose tokens a user change must end. */
export async function startUsersFixture(clock: Clock): Promise<{ f: AdminFixture; oauthClient: ClientFixture }> {
  const f = await adminFixture({ clock });
  return { f, oauthClient: await createClient(f.t.core.db, f.t.core.clock, { scopes: ['openid', 'offline_access'] }) };
}

export function usersApi(fixture: () => AdminFixture) {
  const api: AdminFixture['api'] = (path, init) => fixture().api(path, init);
  return {
    async create(body: Record<string, unknown> = {}) {
      const res = await api('/admin/v1/users', createBody({ username: uniqueName(), password: PASSWORD, ...body }, crypto.randomUUID()));
      assert.equal(res.status, 201, await res.clone().text());
      return { res, body: (await res.json()) as UserBody };
    },
    async read(id: string) {
      const res = await api(`/admin/v1/users/${encodeURIComponent(id)}`);
      assert.equal(res.status, 200, await res.clone().text());
      return { etag: res.headers.get('etag')!, body: (await res.json()) as UserBody };
    },
    put: (id: string, doc: unknown, etag?: string) =>
      api(`/admin/v1/users/${id}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...(etag ? { 'if-match': etag } : {}) },
        body: JSON.stringify(doc),
      }),
    setPassword: (id: string, password: string, headers: Record<string, string> = {}, token?: string) =>
      api(`/admin/v1/users/${id}/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ password }),
        ...(token ? { token } : {}),
      }),
    eventsOf: async (id: string) =>
      (await (await api(`/admin/v1/audit-events?subject=${encodeURIComponent(id)}&limit=100`)).json()) as {
        data: { type: string; changed_fields: string[]; actor: Record<string, unknown> }[];
      },
  };
}
