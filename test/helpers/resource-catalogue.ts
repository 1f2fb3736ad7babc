// The catalogue of a freshly started Gatehouse (its built-in resource servers), for unit tests of code that
// validates scopes without a database.
import { resourceCatalogue, type ResourceCatalogue } from '../../src/oauth/resources/registry.js';
import { builtInResourceServers } from '../../src/admin-services/built-in-resource-servers.js';

export function builtInCatalogue(issuer = 'https://issuer.example'): ResourceCatalogue {
  return resourceCatalogue(
    builtInResourceServers({ ISSUER: issuer, API_AUDIENCE: `${issuer}/v1` }).map((s) => ({
      ...s,
      tokenExchangeClients: [],
      createdAt: new Date(0),
      version: 1,
      updatedAt: new Date(0),
    })),
  );
}
