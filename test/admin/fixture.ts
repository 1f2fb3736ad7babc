// A running app with an admin client made the operator's way (`gatehouse clients create ... --scope
// "admin:read admin:write"`), admin tokens from the real /token endpoint, and request helpers.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { executeCommand } from '../../src/cli/execute.js';
import { createAdminClient } from '../helpers/admin-client.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';

export interface AdminFixture {
  t: TestApp;
  admin: { id: string; secret: string };
  /** admin:read + admin:write */
  token: string;
  readToken: string;
  /** Every log line the app wrote so far. */
  logText(): string;
  api(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  cli(...argv: string[]): Promise<Record<string, unknown>>;
  tokenFor(id: string, secret: string, scope: string): Promise<{ status: number; body: Record<string, unknown> }>;
}

export async function adminFixture(options: TestAppOptions = {}): Promise<AdminFixture> {
  const logs = new PassThrough();
  const chunks: string[] = [];
  logs.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  const t = await startTestApp({ ...options, env: { ...NO_LIMITS, ...options.env }, logStream: logs });
  const cli = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
  const admin = await createAdminClient(cli, 'Platform team');
  const tokenFor = (id: string, secret: string, scope: string) =>
    postForm(`${t.url}/token`, { grant_type: 'client_credentials', scope }, { authorization: basicAuth(id, secret) });
  const token = String((await tokenFor(admin.id, admin.secret, 'admin:read admin:write')).body.access_token);
  const readToken = String((await tokenFor(admin.id, admin.secret, 'admin:read')).body.access_token);
  async function api(path: string, init: RequestInit & { token?: string } = {}) {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${init.token ?? token}`);
    return fetch(`${t.url}${path}`, { ...init, headers });
  }
  return { t, admin, token, readToken, logText: () => chunks.join(''), api, cli, tokenFor };
}

export const SERVICE_CLIENT = {
  client_name: 'Billing',
  grant_types: ['client_credentials'],
  scope: 'orders:read',
  token_endpoint_auth_method: 'client_secret_basic',
};

export const createBody = (body: unknown, key?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
  body: JSON.stringify(body),
});

export const patchBody = (body: unknown, etag?: string): RequestInit => ({
  method: 'PATCH',
  headers: { 'content-type': 'application/merge-patch+json', ...(etag ? { 'if-match': etag } : {}) },
  body: JSON.stringify(body),
});

export async function problemOf(res: Response): Promise<{ code: string; status: number; errors?: { field: string; message: string }[] }> {
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('application/problem+json')) throw new Error(`not a problem: ${res.status} ${type} ${await res.text()}`);
  return (await res.json()) as { code: string; status: number };
}

export type ListPage<T> = { data: T[]; pagination: { has_more: boolean; next_cursor: string | null; limit: number } };

/** Walks a list by its Link rel="next"; `between` runs after the first page (to add rows while paging). */
export async function walk<T>(f: Pick<AdminFixture, 'api'>, first: string, between?: () => Promise<void>): Promise<T[]> {
  const seen: T[] = [];
  let url: string | undefined = first;
  let pages = 0;
  while (url) {
    const res = await f.api(url);
    assert.equal(res.status, 200, await res.clone().text());
    const page = (await res.json()) as ListPage<T>;
    seen.push(...page.data);
    const link = res.headers.get('link');
    assert.equal(page.pagination.has_more, link !== null);
    if (pages++ === 0 && between) await between();
    const next = link ? new URL(/<([^>]+)>; rel="next"/.exec(link)![1]!) : undefined;
    url = next ? next.pathname + next.search : undefined;
  }
  return seen;
}
