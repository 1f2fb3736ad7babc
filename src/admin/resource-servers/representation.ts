// A resource server as the admin API shows it, its validators, and PATCH (RFC 7396) applied to its
// writable view.
import type { Static } from '@sinclair/typebox';
import { strongEtag, type Validators } from '../../http/conditional.js';
import type { Config } from '../../config.js';
import type { ResourceServer } from '../../storage/repositories/resource-servers-repository.js';
import { isBuiltIn, resourceServerView, type ResourceServerInput } from '../../admin-services/resource-servers-service.js';
import { mergePatched } from '../merge-patched.js';
import { protectedResourceMetadataUrl } from '../../resource-server/protected-resource-metadata.js';
import { ResourceServerInputSchema, type ResourceServerInputBody, type ResourceServerSchema } from './schemas.js';

/** Typed as ResourceServerSchema, which serialises it: the service's view (shared with the CLI) is an untyped record. */
export const representResourceServer = (config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>) => (server: ResourceServer) =>
  ({
    ...resourceServerView(server),
    built_in: isBuiltIn(config, server.identifier),
    resource_metadata: protectedResourceMetadataUrl(server.identifier, config.ISSUER),
    updated_at: server.updatedAt.toISOString(),
  }) as Static<typeof ResourceServerSchema>;

/** Strong: the version changes with every write. */
export const resourceServerValidators = (server: ResourceServer): Validators => ({
  etag: strongEtag('resource-server', server.identifier, server.version),
  lastModified: server.updatedAt,
});

/** The writable members of the current resource server, as a PUT body would carry them. */
function writableView(server: ResourceServer): ResourceServerInputBody {
  return {
    name: server.name,
    scopes: server.scopes.map((s) => ({ name: s.name, description: s.description, ...(Object.keys(s.claims).length > 0 ? { claims: s.claims } : {}) })),
    access_token_ttl: server.accessTokenTtl,
    offline_access: server.offlineAccess,
    token_exchange_clients: [...server.tokenExchangeClients],
  };
}

/** The full document this merge patch produces; a change to a read-only member is 422, a wrong shape 400. */
export const patchedResourceServer = (server: ResourceServer, patch: unknown, view: Record<string, unknown>): ResourceServerInputBody =>
  mergePatched(patch, { name: 'resource server', schema: ResourceServerInputSchema, view, writable: writableView(server) });

/** The service input of a PUT/PATCH/POST document. */
export const resourceServerInput = (body: ResourceServerInputBody): ResourceServerInput => ({
  name: body.name,
  scopes: body.scopes.map((s) => ({ name: s.name, description: s.description, ...(s.claims ? { claims: s.claims } : {}) })),
  accessTokenTtl: body.access_token_ttl ?? null,
  offlineAccess: body.offline_access ?? true,
  ...(body.token_exchange_clients !== undefined ? { tokenExchangeClients: body.token_exchange_clients } : {}),
});
