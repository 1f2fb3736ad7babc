// /admin/v1/resource-servers: create (Idempotency-Key required; the introspection secret is shown only
// there), read (strong ETag), list (cursor pages), replace, merge-patch and delete (If-Match required: 428
// without, 412 when stale), as a versioned resource (../versioned-resource.ts). The id in the path is the
// identifier, percent-encoded as one segment. Every rule is in src/admin-services/resource-servers-service.ts,
// shared with the CLI (docs/admin-api.md).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import {
  createResourceServerRecord,
  deleteResourceServerRecord,
  findResourceServerRecord,
  listResourceServerRecords,
  MAX_IDENTIFIER_LENGTH,
  replaceResourceServerRecord,
  type ResourceServerServiceDeps,
} from '../../admin-services/resource-servers-service.js';
import { versionedResource } from '../versioned-resource.js';
import { patchedResourceServer, representResourceServer, resourceServerInput, resourceServerValidators } from './representation.js';
import { CreatedResourceServerSchema, CreateResourceServerSchema, ResourceServerInputSchema, ResourceServerSchema } from './schemas.js';

export async function adminResourceServersRoutes(
  parent: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'idempotency' | 'cursors'>; services: ResourceServerServiceDeps },
): Promise<void> {
  const represent = representResourceServer(core.config);
  versionedResource(parent, core, {
    path: 'resource-servers',
    name: 'resource server',
    operation: 'ResourceServer',
    id: Type.String({ maxLength: MAX_IDENTIFIER_LENGTH }), // the identifier, percent-encoded as one path segment
    schema: ResourceServerSchema,
    represent,
    validators: resourceServerValidators,
    idOf: (server) => server.identifier,
    find: (identifier) => findResourceServerRecord(services, identifier),
    conflicts: true,
    list: {
      summary: 'List resource servers, oldest first (cursor pages)',
      rows: (_query, { after, limit }) =>
        listResourceServerRecords(services, { ...(after ? { after: { createdAt: after.createdAt, identifier: after.id } } : {}), limit }),
      position: (server) => ({ createdAt: server.createdAt, id: server.identifier }),
    },
    create: {
      summary: 'Register a resource server (Idempotency-Key required; its introspection secret is shown only here)',
      body: CreateResourceServerSchema,
      response: CreatedResourceServerSchema,
      run: async ({ identifier, ...document }, tx, as) => {
        const { server, secret } = await createResourceServerRecord({ ...services, store: tx }, identifier, resourceServerInput(document), as);
        return { row: server, once: { client_secret: secret } };
      },
    },
    update: {
      summaries: {
        replace: "Replace a resource server's settings and scopes (If-Match required)",
        patch: 'Change some settings of a resource server (RFC 7396 merge patch; If-Match required)',
      },
      body: ResourceServerInputSchema,
      replaced: (_current, body) => body,
      patched: (current, patch) => patchedResourceServer(current, patch, represent(current)),
      save: (current, document, as) => replaceResourceServerRecord(services, current.identifier, resourceServerInput(document), current.version, as),
    },
    remove: {
      summary: 'Delete a resource server and its introspection client (If-Match required; built-ins: 409)',
      run: (current, as) => deleteResourceServerRecord(services, current.identifier, current.version, as),
    },
  });
}
