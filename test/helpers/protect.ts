// `gatehouse protect` set-up shared by the protect tests: a registered resource server (scopes and routes) with a
// client_credentials client for it, and spawning the proxy through the CLI entry with the registration's
// credentials in the environment.
import type { ChildProcess, StdioOptions } from 'node:child_process';
import type { TestApp } from './app.js';
import { spawnTracked } from './children.js';
import { createClient } from './oauth-fixtures.js';
import { registerResourceServer, type RegisteredResourceServer } from './resource-servers.js';

/** The resource server's own credentials, as `resource-servers create` answers them. */
export type ResourceServerCredentials = Pick<RegisteredResourceServer, 'client_id' | 'client_secret'>;

/** `node <protectCommand…> <args>` runs `gatehouse protect` through the CLI entry. */
export const protectCommand = ['--import', 'tsx', 'test/helpers/cli-entry.ts', 'protect'];

/**
 * A resource server (registered as {@link registerResourceServer} does) and a confidential client_credentials
 * client allowed `clientScopes`, to fetch tokens for it.
 */
export async function registerWithClient(
  core: TestApp['core'],
  resource: string,
  options: { name: string; scope: string; routes: string[]; clientScopes: string[] },
): Promise<{ credentials: ResourceServerCredentials; service: { id: string; secret: string } }> {
  const credentials = await registerResourceServer(core, resource, options);
  const client = await createClient(core.db, core.clock, {
    type: 'confidential',
    grantTypes: ['client_credentials'],
    scopes: options.clientScopes,
  });
  return { credentials, service: { id: client.client.id, secret: client.secret! } };
}

/** The arguments of `gatehouse protect` for `resource` in front of `upstream`, listening on 127.0.0.1:`port` (operations on any free port). */
export function protectArgs(options: { resource: string; upstream: string; issuer: string; port: number | string }): string[] {
  return [
    '--resource',
    options.resource,
    '--upstream',
    options.upstream,
    '--issuer',
    options.issuer,
    '--listen',
    `127.0.0.1:${options.port}`,
    '--ops-listen',
    '127.0.0.1:0',
  ];
}

/** Spawns `gatehouse protect <args>` through the CLI entry with the resource server's credentials in its environment. */
export function spawnProtect(args: string[], credentials: ResourceServerCredentials, stdio: StdioOptions): ChildProcess {
  return spawnTracked(process.execPath, [...protectCommand, ...args], {
    env: { ...process.env, GATEHOUSE_CLIENT_ID: credentials.client_id, GATEHOUSE_CLIENT_SECRET: credentials.client_secret },
    stdio,
  });
}
