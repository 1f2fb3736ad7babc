// The resource servers Gatehouse itself serves, registered on first start (and before any CLI command) so
// that the registry, not the code, is what tokens are granted from: the resource API /v1 with the scopes it
// declares, and the operator-only administration API. An existing registration is left as it is.
// docs/resource-servers.md
import type { Config } from '../config.js';
import { adminAudience, adminScopeDescriptions, API_SCOPES } from '../scopes.js';
import type { NewResourceServer, ResourceServersRepository } from '../storage/repositories/resource-servers-repository.js';

const scopes = (declared: Record<string, string>) => Object.entries(declared).map(([name, description]) => ({ name, description, claims: {} }));

export function builtInResourceServers(config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>): NewResourceServer[] {
  const common = { accessTokenTtl: null, clientId: null };
  return [
    { ...common, identifier: config.API_AUDIENCE, name: 'Gatehouse resource API', offlineAccess: true, operatorOnly: false, scopes: scopes(API_SCOPES) },
    {
      ...common,
      identifier: adminAudience(config.ISSUER),
      name: 'Gatehouse administration API',
      offlineAccess: false,
      operatorOnly: true,
      scopes: scopes(adminScopeDescriptions),
    },
  ];
}

export async function registerBuiltInResourceServers(
  repository: Pick<ResourceServersRepository, 'create'>,
  config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>,
): Promise<void> {
  for (const server of builtInResourceServers(config)) await repository.create(server);
}
