// /admin/v1/resource-servers: create (Idempotency-Key required; the introspection secret is shown only
// there), read (strong ETag), list (cursor pages), replace, merge-patch and delete (If-Match required: 428
// without, 412 when stale). The id in the path is the identifier, percent-encoded as one segment. Every rule
// is in src/admin-services/resource-servers-service.ts, shared with the CLI (docs/admin-api.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import type { Core } from '../../core.js';
import { checkPreconditions, requireIfMatch, setValidators } from '../../http/conditional.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { MERGE_PATCH } from '../../http/json-body.js';
import { notModified, problemResponses } from '../../http/openapi-schemas.js';
import { pagedResponse, sendPage, parsePageQuery } from '../../http/pagination/index.js';
import { requireScope } from '../../resource-server/auth/index.js';
import {
  createResourceServerRecord,
  deleteResourceServerRecord,
  findResourceServerRecord,
  listResourceServerRecords,
  replaceResourceServerRecord,
  type ResourceServerServiceDeps,
} from '../../admin-services/resource-servers-service.js';
import type { ResourceServer } from '../../storage/resource-servers-repository.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from '../acting-as.js';
import { asProblems } from '../service-errors.js';
import { patchedResourceServer, representResourceServer, resourceServerInput, resourceServerPath, resourceServerValidators } from './representation.js';
import {
  CreatedResourceServerSchema,
  CreateResourceServerSchema,
  ListQuery,
  ResourceServerInputSchema,
  ResourceServerListSchema,
  ResourceServerParams,
  ResourceServerSchema,
  type CreateResourceServerBody,
  type ResourceServerInputBody,
} from './schemas.js';

const tags = ['admin: resource-servers'];
const RESOURCE = 'resource server';

export async function adminResourceServersRoutes(
  parent: FastifyInstance,
  { core, services }: { core: Core & Pick<Services, 'idempotency' | 'cursors'>; services: ResourceServerServiceDeps },
): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { idempotency, cursors } = core;
  const prefix = app.prefix;
  const represent = representResourceServer(core.config);
  const location = (identifier: string) => `${core.config.ISSUER}${resourceServerPath(prefix, identifier)}`;
  const find = (identifier: string) => asProblems(RESOURCE, () => findResourceServerRecord(services, identifier));

  /** The target of a PUT/PATCH/DELETE: If-Match required and matching; the version it matched is the one written against. */
  async function writeTarget(request: FastifyRequest, reply: FastifyReply, id: string): Promise<ResourceServer> {
    requireIfMatch(request);
    const server = await find(id);
    checkPreconditions(request, reply, resourceServerValidators(server));
    return server;
  }

  app.post('/resource-servers', {
    schema: {
      tags, summary: 'Register a resource server (Idempotency-Key required; its introspection secret is shown only here)', operationId: 'adminCreateResourceServer',
      body: CreateResourceServerSchema, headers: idempotencyKeyHeader(true), response: { 201: CreatedResourceServerSchema, ...problemResponses(400, 401, 403, 406, 409, 413, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    ...idempotency.route<{ Body: CreateResourceServerBody }>({ required: true }, async (request, tx) => {
      const { identifier, ...document } = request.body;
      const { server, secret } = await asProblems(RESOURCE, () => createResourceServerRecord({ ...services, db: tx }, identifier, resourceServerInput(document), actingAs(request)));
      const body = represent(server);
      // The replay of a retried create repeats everything but the secret, which is never stored.
      return { status: 201, headers: { location: location(server.identifier), etag: resourceServerValidators(server).etag }, body: { ...body, client_secret: secret }, replayBody: body };
    }),
  });

  app.get('/resource-servers', {
    schema: { tags, summary: 'List resource servers, oldest first (cursor pages)', operationId: 'adminListResourceServers', querystring: ListQuery, response: { 200: ResourceServerListSchema, ...problemResponses(400, 401, 403, 406, 422) } },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const scope = 'admin-resource-servers';
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const after = page.style === 'cursor' && page.after ? { createdAt: page.after.createdAt, identifier: page.after.id } : undefined;
      const rows = await listResourceServerRecords(services, { ...(after ? { after } : {}), limit: page.limit + 1 });
      return sendPage(reply, pagedResponse(rows, page, {
        requestUrl: new URL(request.url, core.config.ISSUER),
        position: (s: ResourceServer) => ({ createdAt: s.createdAt, id: s.identifier }),
        represent,
        cursors: { codec: cursors, scope },
      }));
    },
  });

  app.get('/resource-servers/:id', {
    schema: { tags, summary: 'Read a resource server (strong ETag)', operationId: 'adminGetResourceServer', params: ResourceServerParams, response: { 200: ResourceServerSchema, ...notModified, ...problemResponses(401, 403, 404, 406) } },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const server = await find(request.params.id);
      if (!checkPreconditions(request, reply, resourceServerValidators(server))) return reply.send();
      setValidators(reply, resourceServerValidators(server));
      return represent(server);
    },
  });

  async function replace(request: FastifyRequest, reply: FastifyReply, current: ResourceServer, document: ResourceServerInputBody) {
    const updated = await asProblems(RESOURCE, () => replaceResourceServerRecord(services, current.identifier, resourceServerInput(document), current.version, actingAs(request)));
    setValidators(reply, resourceServerValidators(updated));
    return represent(updated);
  }

  const writeResponses = { 200: ResourceServerSchema, ...problemResponses(400, 401, 403, 404, 406, 409, 412, 413, 415, 422, 428) };

  app.put('/resource-servers/:id', {
    schema: { tags, summary: 'Replace a resource server\'s settings and scopes (If-Match required)', operationId: 'adminReplaceResourceServer', params: ResourceServerParams, body: ResourceServerInputSchema, response: writeResponses },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => replace(request, reply, await writeTarget(request, reply, request.params.id), request.body),
  });

  app.patch('/resource-servers/:id', {
    schema: {
      tags, summary: 'Change some settings of a resource server (RFC 7396 merge patch; If-Match required)', operationId: 'adminPatchResourceServer', params: ResourceServerParams,
      body: { content: { [MERGE_PATCH]: { schema: Type.Object({}, { additionalProperties: true }) } } }, response: writeResponses,
    },
    config: { bodyMediaTypes: [MERGE_PATCH] },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      return replace(request, reply, current, patchedResourceServer(current, request.body, represent(current)));
    },
  });

  app.delete('/resource-servers/:id', {
    schema: {
      tags, summary: 'Delete a resource server and its introspection client (If-Match required; built-ins: 409)', operationId: 'adminDeleteResourceServer', params: ResourceServerParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(401, 403, 404, 409, 412, 428) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      await asProblems(RESOURCE, () => deleteResourceServerRecord(services, current.identifier, current.version, actingAs(request)));
      return reply.code(204).send(null);
    },
  });
}
