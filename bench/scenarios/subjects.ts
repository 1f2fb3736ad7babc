// Set-up shared by scenarios: the OAuth clients each side uses, created through each side's own
// registration path (Gatehouse: the `clients create` CLI command; peer and baseline: static configuration).
import type { ChildServer } from '../lib/child.js';
import { NotRunnable } from '../lib/not-runnable.js';
import type { Unavailable } from './scenario.js';

export interface Capabilities {
  token: boolean;
  authorize: boolean;
  usersMe: boolean;
  payments: boolean;
  orders: boolean;
  benchUsersMe: boolean;
  commands: string[];
}

export const capabilities = (gatehouse: ChildServer): Promise<Capabilities> => gatehouse.call<Capabilities>('capabilities');

export async function requireCapability(gatehouse: ChildServer, key: keyof Omit<Capabilities, 'commands'>, what: string): Promise<void> {
  if (!(await capabilities(gatehouse))[key]) throw new NotRunnable(`${what} is not in Gatehouse yet`);
}

export interface ClientCredentials {
  id: string;
  secret: string;
}

/** A confidential client_secret_basic client registered through the real CLI command. */
export async function gatehouseClient(
  gatehouse: ChildServer,
  options: { name: string; grantTypes: string[]; scope: string; redirectUri?: string; skipConsent?: boolean },
): Promise<ClientCredentials> {
  const args = [
    '--name',
    options.name,
    '--type',
    'confidential',
    '--auth-method',
    'client_secret_basic',
    '--grant-types',
    options.grantTypes.join(','),
    '--scope',
    options.scope,
    ...(options.redirectUri ? ['--redirect-uri', options.redirectUri] : []),
    ...(options.skipConsent ? ['--skip-consent'] : []),
  ];
  const created = await gatehouse.call<{ client_id: string; client_secret: string }>('command', { name: 'clients create', args });
  return { id: created.client_id, secret: created.client_secret };
}

/** Runs `f`; a NotRunnable becomes an entry of `unavailable` (and undefined), anything else propagates. */
export async function unlessNotRunnable<T>(label: string, unavailable: Unavailable[], f: () => Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch (error) {
    if (error instanceof NotRunnable) {
      unavailable.push({ label, reason: error.message });
      return undefined;
    }
    throw error;
  }
}
