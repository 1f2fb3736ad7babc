// Tokens and requests for the shop resources (orders, payments, reports) in black-box tests: real
// users in the database, real ES256 at+jwt access tokens signed by the app's own keys.
import { randomUUID } from 'node:crypto';
import type { Core } from '../../src/core.js';
import { accessTokenIssuer } from '../../src/oauth/issued-tokens/access-tokens.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';

export const SHOP_SCOPES = ['orders:read', 'orders:write', 'payments:write', 'reports:read', 'reports:write'];

export interface Caller {
  token: string;
  /** The user id for user tokens, the client id for service tokens. */
  sub: string;
}

export function shopTokens(core: Pick<Core, 'keys' | 'clock' | 'config' | 'db'>) {
  const issuer = accessTokenIssuer({ keys: core.keys, clock: core.clock, config: core.config });
  const users = usersRepository(core.db, core.clock);
  return {
    async user(scope: string[] = SHOP_SCOPES, clientId = 'shop-app'): Promise<Caller> {
      const user = await users.create({ username: `u-${randomUUID()}`, passwordHash: 'not-a-login' });
      const { token } = await issuer.issue({ sub: user.id, clientId, scope, authTime: Math.floor(core.clock.now() / 1000) });
      return { token, sub: user.id };
    },
    async tokenFor(userId: string, scope: string[] = SHOP_SCOPES, clientId = 'shop-app'): Promise<string> {
      return (await issuer.issue({ sub: userId, clientId, scope, authTime: Math.floor(core.clock.now() / 1000) })).token;
    },
    async service(scope: string[] = SHOP_SCOPES, clientId = 'back-office'): Promise<Caller> {
      const { token } = await issuer.issue({ sub: clientId, clientId, scope });
      return { token, sub: clientId };
    },
  };
}

export interface CallOptions {
  token: string;
  body?: unknown;
  key?: string;
  headers?: Record<string, string>;
}

/** One real HTTP request; the body text is kept so tests can compare bytes. */
export async function call(base: string, method: string, path: string, options: CallOptions) {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever fields the response under test has
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const orderBody = (price = '12.50', quantity = 2, currency = 'EUR') => ({ currency, items: [{ sku: 'SKU-1', quantity, unit_price: price }] });
