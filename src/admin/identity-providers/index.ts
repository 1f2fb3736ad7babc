// /admin/v1/identity-providers: create (Idempotency-Key required), read (strong ETag), list (cursor pages),
// replace and delete (If-Match required: 428 without, 412 when stale). The id in the path is the provider's
// id or its slug. Every rule is in src/admin-services/identity-providers-service.ts, shared with the CLI
// (docs/federation.md, docs/admin-api.md). Merge-patch is not offered yet.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { checkPreconditions, requireIfMatch, setValidators } from '../../http/conditional.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { notModified, problemResponses } from '../../http/openapi-schemas.js';
import { pagedResponse, sendPage, parsePageQuery } from '../../http/pagination/index.js';
import { requireScope } from '../../resource-server/auth/index.js';
import {
  createIdentityProviderRecord,
  deleteIdentityProviderRecord,
  findIdentityProviderRecord,
  listIdentityProviderRecords,
  replaceIdentityProviderRecord,
  type IdentityProviderServiceDeps,
} from '../../admin-services/identity-providers-service.js';
import type { IdentityProvider } from '../../storage/repositories/identity-providers-repository.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from '../acting-as.js';
import { asProblems } from '../service-errors.js';
import { identityProviderInput, identityProviderPath, identityProviderValidators, representIdentityProvider } from './representation.js';
import {
  CreateIdentityProviderSchema,
  IdentityProviderInputSchema,
  IdentityProviderListSchema,
  IdentityProviderParams,
  IdentityProviderSchema,
  ListQuery,
  type CreateIdentityProviderBody,
} from './schemas.js';

const tags = ['admin: identity-providers'];
const RESOURCE = 'identity provider';

export async function adminIdentityProvidersRoutes(
  parent: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'idempotency' | 'cursors'>; services: IdentityProviderServiceDeps },
): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { idempotency, cursors } = core;
  const prefix = app.prefix;
  const represent = representIdentityProvider(core.config);
  const find = (id: string) => asProblems(RESOURCE, () => findIdentityProviderRecord(services, id));

  async function writeTarget(request: FastifyRequest, reply: FastifyReply, id: string): Promise<IdentityProvider> {
    requireIfMatch(request);
    const provider = await find(id);
    checkPreconditions(request, reply, identityProviderValidators(provider));
    return provider;
  }

  app.post('/identity-providers', {
    schema: {
      tags,
      summary: 'Register an upstream identity provider (Idempotency-Key required; OIDC endpoints are discovered)',
      operationId: 'adminCreateIdentityProvider',
      body: CreateIdentityProviderSchema,
      headers: idempotencyKeyHeader(true),
      response: { 201: IdentityProviderSchema, ...problemResponses(400, 401, 403, 406, 409, 413, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    ...idempotency.route<{ Body: CreateIdentityProviderBody }>({ required: true }, async (request, tx) => {
      const provider = await asProblems(RESOURCE, () =>
        createIdentityProviderRecord({ ...services, store: tx }, identityProviderInput(request.body), actingAs(request)),
      );
      const body = represent(provider);
      return {
        status: 201,
        headers: { location: `${core.config.ISSUER}${identityProviderPath(prefix, provider.id)}`, etag: identityProviderValidators(provider).etag },
        body,
      };
    }),
  });

  app.get('/identity-providers', {
    schema: {
      tags,
      summary: 'List identity providers, oldest first (cursor pages)',
      operationId: 'adminListIdentityProviders',
      querystring: ListQuery,
      response: { 200: IdentityProviderListSchema, ...problemResponses(400, 401, 403, 406, 422) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const scope = 'admin-identity-providers';
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const after = page.style === 'cursor' && page.after ? { createdAt: page.after.createdAt, id: page.after.id } : undefined;
      const rows = await listIdentityProviderRecords(services, { ...(after ? { after } : {}), limit: page.limit + 1 });
      return sendPage(
        reply,
        pagedResponse(rows, page, {
          requestUrl: new URL(request.url, core.config.ISSUER),
          position: (p: IdentityProvider) => ({ createdAt: p.createdAt, id: p.id }),
          represent,
          cursors: { codec: cursors, scope },
        }),
      );
    },
  });

  app.get('/identity-providers/:id', {
    schema: {
      tags,
      summary: 'Read an identity provider by id or slug (strong ETag)',
      operationId: 'adminGetIdentityProvider',
      params: IdentityProviderParams,
      response: { 200: IdentityProviderSchema, ...notModified, ...problemResponses(401, 403, 404, 406) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const provider = await find(request.params.id);
      if (!checkPreconditions(request, reply, identityProviderValidators(provider))) return reply.send();
      setValidators(reply, identityProviderValidators(provider));
      return represent(provider);
    },
  });

  app.put('/identity-providers/:id', {
    schema: {
      tags,
      summary: "Replace an identity provider's settings (If-Match required; the slug never changes)",
      operationId: 'adminReplaceIdentityProvider',
      params: IdentityProviderParams,
      body: IdentityProviderInputSchema,
      response: { 200: IdentityProviderSchema, ...problemResponses(400, 401, 403, 404, 406, 409, 412, 413, 415, 422, 428) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      const updated = await asProblems(RESOURCE, () =>
        replaceIdentityProviderRecord(services, current.id, identityProviderInput(request.body), current.version, actingAs(request)),
      );
      setValidators(reply, identityProviderValidators(updated));
      return represent(updated);
    },
  });

  app.delete('/identity-providers/:id', {
    schema: {
      tags,
      summary: 'Delete an identity provider and its federated identities (If-Match required; users stay)',
      operationId: 'adminDeleteIdentityProvider',
      params: IdentityProviderParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(401, 403, 404, 412, 428) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      await asProblems(RESOURCE, () => deleteIdentityProviderRecord(services, current.id, current.version, actingAs(request)));
      return reply.code(204).send(null);
    },
  });
}
