// Registering a resource server the way an operator does, through the CLI's `resource-servers create`.
import { executeCommand } from '../../src/cli/execute.js';
import type { TestApp } from './app.js';

/** What `resource-servers create` answers (the parts the tests read). */
export interface RegisteredResourceServer {
  identifier: string;
  name: string;
  scopes: { name: string; description: string }[];
  client_id: string;
  client_secret: string;
}

/** Registers a resource server with its scopes, routes (each one `--route`) and any further options of the command. */
export async function registerResourceServer(
  core: TestApp['core'],
  resource: string,
  options: { name: string; scope: string; routes?: string[]; extra?: string[] },
): Promise<RegisteredResourceServer> {
  return (await executeCommand(
    [
      'resource-servers',
      'create',
      '--identifier',
      resource,
      '--name',
      options.name,
      '--scope',
      options.scope,
      ...(options.routes ?? []).flatMap((route) => ['--route', route]),
      ...(options.extra ?? []),
    ],
    core,
  )) as RegisteredResourceServer;
}
