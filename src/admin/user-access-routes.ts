// What /admin/v1/grants, /sessions and /consents share: the owner filter of their lists (one owner
// required, cursor pages bound to it), reads with a strong ETag, and DELETE under If-Match (428 without,
// 412 stale; of two parallel DELETEs with one ETag, one is 204 and the other finds the thing gone: 404).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TOptional, type TSchema, type TString } from '@sinclair/typebox';
import type { AdminDeps } from './deps.js';
import type { AdminCore } from '../admin-services/deps.js';
import { checkPreconditions, requireIfMatch, setValidators, type Validators } from '../http/conditional.js';
import { ProblemError } from '../http/errors.js';
import { canonicalJson } from '../http/idempotency/index.js';
import { notModified, problemResponses } from '../http/openapi-schemas.js';
import { pagedResponse, pageQueryProperties, parsePageQuery, sendPage } from '../http/pagination/index.js';
import { requireScope } from '../resource-server/auth/index.js';
import type { OwnerFilter, PageAfter } from '../storage/repositories/user-access-admin-repository.js';
import type { ActingAs } from '../admin-services/clients-service.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from './acting-as.js';
import { asProblems } from './service-errors.js';

const Id = Type.Object({ id: Type.String({ maxLength: 200 }) });

export interface UserAccessResource<Row> {
  /** Path segment and OpenAPI names: `grants` → adminListGrants, adminGetGrant, adminDeleteGrant. */
  path: string;
  singular: string;
  operation: string;
  /** Which owners the list may be filtered by; the first is the one required when only one is allowed. */
  owners: readonly ('user_id' | 'client_id')[];
  schema: TSchema;
  summaries: { list: string; read: string; delete: string };
  list(filter: OwnerFilter, page: PageAfter): Promise<Row[]>;
  find(id: string): Promise<Row>;
  end(row: Row, as: ActingAs): Promise<void>;
  represent(row: Row): Record<string, unknown>;
  validators(row: Row): Validators;
  position(row: Row): { createdAt: Date; id: string };
}

export function userAccessRoutes<Row>(parent: FastifyInstance, core: AdminCore & Pick<AdminDeps, 'cursors'>, resource: UserAccessResource<Row>): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { cursors } = core;
  const tags = [`admin: ${resource.path}`];
  // Only the resource's own owners are members; the assertion lets the type provider see both as optional
  // query parameters (a conditional spread would make TypeBox infer them as required).
  const owners = {
    ...(resource.owners.includes('user_id') ? { user_id: Type.Optional(Type.String({ maxLength: 200, description: 'The user whose ones to list' })) } : {}),
    ...(resource.owners.includes('client_id')
      ? { client_id: Type.Optional(Type.String({ maxLength: 200, description: 'The client whose ones to list' })) }
      : {}),
  } as { user_id: TOptional<TString>; client_id: TOptional<TString> };
  const Query = Type.Object(
    {
      ...owners,
      limit: pageQueryProperties.limit,
      cursor: pageQueryProperties.cursor,
    },
    { additionalProperties: false },
  );
  const ListSchema = Type.Object({
    data: Type.Array(resource.schema),
    pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }),
  });
  const find = (id: string) => asProblems(resource.singular, () => resource.find(id));

  app.get(`/${resource.path}`, {
    schema: {
      tags,
      summary: resource.summaries.list,
      operationId: `adminList${resource.operation}s`,
      querystring: Query,
      response: { 200: ListSchema, ...problemResponses(400, 401, 403, 406, 422) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const { user_id: userId, client_id: clientId } = request.query;
      if (userId === undefined && clientId === undefined) {
        const names = resource.owners.join(' or ');
        throw new ProblemError('bad-request', `The list needs ${names}.`, { errors: [{ field: resource.owners[0]!, message: `${names} is required` }] });
      }
      const filter: OwnerFilter = { ...(userId !== undefined ? { userId } : {}), ...(clientId !== undefined ? { clientId } : {}) };
      const scope = `admin-${resource.path}\n${canonicalJson(filter)}`;
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const after = page.style === 'cursor' ? page.after : undefined;
      const rows = await asProblems(resource.singular, () => resource.list(filter, { ...(after ? { after } : {}), limit: page.limit + 1 }));
      return sendPage(
        reply,
        pagedResponse(rows, page, {
          requestUrl: new URL(request.url, core.config.ISSUER),
          position: resource.position,
          represent: resource.represent,
          cursors: { codec: cursors, scope },
        }),
      );
    },
  });

  app.get(`/${resource.path}/:id`, {
    schema: {
      tags,
      summary: resource.summaries.read,
      operationId: `adminGet${resource.operation}`,
      params: Id,
      response: { 200: resource.schema, ...notModified, ...problemResponses(401, 403, 404, 406) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const row = await find(request.params.id);
      if (!checkPreconditions(request, reply, resource.validators(row))) return reply.send();
      setValidators(reply, resource.validators(row));
      return resource.represent(row);
    },
  });

  app.delete(`/${resource.path}/:id`, {
    schema: {
      tags,
      summary: resource.summaries.delete,
      operationId: `adminDelete${resource.operation}`,
      params: Id,
      response: { 204: Type.Null({ description: 'Ended' }), ...problemResponses(401, 403, 404, 412, 428) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      requireIfMatch(request);
      const row = await find(request.params.id);
      checkPreconditions(request, reply, resource.validators(row));
      await asProblems(resource.singular, () => resource.end(row, actingAs(request)));
      return reply.code(204).send(null);
    },
  });
}
