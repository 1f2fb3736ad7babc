// The resource servers Gatehouse itself serves, registered on first start (and before any CLI command) so
// that the registry, not the code, is what tokens are granted from: the resource API /v1 with the scopes it
// declares, and the operator-only administration API. An existing registration is left as it is.
// docs/resource-servers.md
import { API_SCOPES } from '../api/scopes.js';
import type { Config } from '../config.js';
import type { NewResourceServer, ResourceServersRepository } from '../storage/resource-servers-repository.js';

export const ADMIN_SCOPES = {
  'admin:read': 'Read the server configuration and audit log (operators only)',
  'admin:write': 'Change the server configuration (operators only)',
} as const;

const scopes = (declared: Record<string, string>) => Object.entries(declared).map(([name, description]) => ({ name, description, claims: {} }));

export function builtInResourceServers(config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>): NewResourceServer[] {
  const common = { accessTokenTtl: null, clientId: null };
  return [
    { ...common, identifier: config.API_AUDIENCE, name: 'Gatehouse resource API', offlineAccess: true, operatorOnly: false, scopes: scopes(API_SCOPES) },
    { ...common, identifier: `${config.ISSUER}/admin`, name: 'Gatehouse administration API', offlineAccess: false, operatorOnly: true, scopes: scopes(ADMIN_SCOPES) },
  ];
}

export async function registerBuiltInResourceServers(repository: Pick<ResourceServersRepository, 'create'>, config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>): Promise<void> {
  for (const server of builtInResourceServers(config)) await repository.create(server);
}
