// /admin/v1/users: create (Idempotency-Key required; a password is required), read (strong ETag), list
// (cursor pages, prefix search), replace, merge-patch and delete (If-Match required: 428 without, 412 when
// stale), set a password (ends the user's sessions and refresh tokens) and reset the second factors. Custom
// attributes are a member like the others: written in the same version-guarded UPDATE as the profile.
// Every rule is in src/admin-services/users-service.ts and user-attributes.ts, shared with the CLI (`gatehouse users ...`).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import type { Core } from '../../core.js';
import { checkPreconditions, evaluatePreconditions, requireIfMatch, setValidators } from '../../http/conditional.js';
import { ProblemError } from '../../http/errors.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { MERGE_PATCH } from '../../http/json-body.js';
import { notModified, problemResponses } from '../../http/openapi-schemas.js';
import { pagedResponse, sendPage, parsePageQuery } from '../../http/pagination/index.js';
import { requireScope } from '../../resource-server/auth/index.js';
import {
  createUserRecord,
  deleteUserRecord,
  findUserRecord,
  listUserRecords,
  resetSecondFactors,
  secondFactorsOf,
  setUserPassword,
  updateUserRecord,
  type UserFields,
  type UserServiceDeps,
} from '../../admin-services/users-service.js';
import type { User } from '../../storage/users-repository.js';
import { NO_SECOND_FACTORS, type SecondFactors } from '../../storage/user-admin-repository.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from '../acting-as.js';
import { asProblems } from '../service-errors.js';
import { patchedUser, representUser, userInput, userPath, userValidators } from './representation.js';
import { CreateUserSchema, ListQuery, SetPasswordSchema, UserInputSchema, UserListSchema, UserParams, UserSchema, type CreateUserBody } from './schemas.js';

const tags = ['admin: users'];
interface Found {
  user: User;
  factors: SecondFactors;
}

export async function adminUsersRoutes(parent: FastifyInstance, { core, services }: { core: Core & Pick<Services, 'idempotency' | 'cursors'>; services: UserServiceDeps }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { idempotency, cursors } = core;
  const prefix = app.prefix;
  const location = (id: string) => `${core.config.ISSUER}${userPath(prefix, id)}`;

  const factorsOf = async (user: User) => (await secondFactorsOf(services, [user.id])).get(user.id) ?? NO_SECOND_FACTORS;
  async function find(id: string): Promise<Found> {
    const user = await asProblems('user', () => findUserRecord(services, id));
    return { user, factors: await factorsOf(user) };
  }

  /** The target of a PUT/PATCH/DELETE: If-Match required and matching; the version it matched is the one written against. */
  async function writeTarget(request: FastifyRequest, reply: FastifyReply, id: string): Promise<Found> {
    requireIfMatch(request);
    const found = await find(id);
    checkPreconditions(request, reply, userValidators(found.user, found.factors));
    return found;
  }

  /** An optional If-Match (password, second factors): when sent, it pins the change to the version read. */
  async function optionalVersion(request: FastifyRequest, id: string): Promise<number | undefined> {
    if (request.headers['if-match'] === undefined) return undefined;
    const { user, factors } = await find(id);
    if (evaluatePreconditions(request.method, request.headers, userValidators(user, factors)) === 'failed') {
      throw new ProblemError('precondition-failed', 'The user changed since it was read; read it again and retry with the new ETag.');
    }
    return user.version;
  }

  app.post('/users', {
    schema: {
      tags, summary: 'Create a user (Idempotency-Key required; a password is required)', operationId: 'adminCreateUser', body: CreateUserSchema,
      headers: idempotencyKeyHeader(true), response: { 201: UserSchema, ...problemResponses(400, 401, 403, 406, 409, 413, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    ...idempotency.route<{ Body: CreateUserBody }>({ required: true }, async (request, tx) => {
      const { password, ...rest } = request.body;
      const user = await asProblems('user', () => createUserRecord({ ...services, db: tx }, { ...userInput(rest), password }, actingAs(request)));
      return { status: 201, headers: { location: location(user.id), etag: userValidators(user, NO_SECOND_FACTORS).etag }, body: representUser(user, NO_SECOND_FACTORS) };
    }),
  });

  app.get('/users', {
    schema: {
      tags, summary: 'List users, oldest first (cursor pages; q: prefix of username or e-mail)', operationId: 'adminListUsers', querystring: ListQuery,
      response: { 200: UserListSchema, ...problemResponses(400, 401, 403, 406, 422) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const search = request.query.q?.trim() || undefined;
      // A cursor is bound to its search: it cannot continue a page of another one.
      const scope = `admin-users\n${search?.toLowerCase() ?? ''}`;
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const after = page.style === 'cursor' ? page.after : undefined;
      const rows = await listUserRecords(services, { ...(after ? { after } : {}), limit: page.limit + 1, ...(search ? { search } : {}) });
      const factors = await secondFactorsOf(services, rows.map((u) => u.id));
      return sendPage(reply, pagedResponse(rows, page, {
        requestUrl: new URL(request.url, core.config.ISSUER),
        position: (u: User) => ({ createdAt: u.createdAt, id: u.id }),
        represent: (u: User) => representUser(u, factors.get(u.id) ?? NO_SECOND_FACTORS),
        cursors: { codec: cursors, scope },
      }));
    },
  });

  app.get('/users/:id', {
    schema: { tags, summary: 'Read a user (strong ETag)', operationId: 'adminGetUser', params: UserParams, response: { 200: UserSchema, ...notModified, ...problemResponses(401, 403, 404, 406) } },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const { user, factors } = await find(request.params.id);
      if (!checkPreconditions(request, reply, userValidators(user, factors))) return reply.send();
      setValidators(reply, userValidators(user, factors));
      return representUser(user, factors);
    },
  });

  async function update(request: FastifyRequest, reply: FastifyReply, current: Found, fields: UserFields) {
    const updated = await asProblems('user', () => updateUserRecord(services, current.user, fields, actingAs(request), current.user.version));
    setValidators(reply, userValidators(updated, current.factors));
    return representUser(updated, current.factors);
  }

  const writeResponses = { 200: UserSchema, ...problemResponses(400, 401, 403, 404, 406, 409, 412, 413, 415, 422, 428) };

  app.put('/users/:id', {
    schema: { tags, summary: 'Replace a user\'s profile and attributes (If-Match required)', operationId: 'adminReplaceUser', params: UserParams, body: UserInputSchema, response: writeResponses },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => update(request, reply, await writeTarget(request, reply, request.params.id), userInput(request.body)),
  });

  app.patch('/users/:id', {
    schema: {
      tags, summary: 'Change some members of a user (RFC 7396 merge patch; If-Match required)', operationId: 'adminPatchUser', params: UserParams,
      body: { content: { [MERGE_PATCH]: { schema: Type.Object({}, { additionalProperties: true }) } } }, response: writeResponses,
    },
    config: { bodyMediaTypes: [MERGE_PATCH] },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      return update(request, reply, current, patchedUser(current.user, current.factors, request.body));
    },
  });

  app.delete('/users/:id', {
    schema: {
      tags, summary: 'Delete a user and end all their sessions and tokens (If-Match required)', operationId: 'adminDeleteUser', params: UserParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(401, 403, 404, 409, 412, 428) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const { user } = await writeTarget(request, reply, request.params.id);
      await asProblems('user', () => deleteUserRecord(services, user.id, actingAs(request), user.version));
      return reply.code(204).send(null);
    },
  });

  app.post('/users/:id/password', {
    schema: {
      tags, summary: 'Set a new password; ends every session and refresh token of the user (If-Match optional)', operationId: 'adminSetUserPassword',
      params: UserParams, body: SetPasswordSchema, response: { 204: Type.Null({ description: 'Set' }), ...problemResponses(400, 401, 403, 404, 406, 412, 413, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const expectedVersion = await optionalVersion(request, request.params.id);
      const user = await asProblems('user', () => setUserPassword(services, request.params.id, request.body.password, actingAs(request), expectedVersion));
      setValidators(reply, userValidators(user, await factorsOf(user)));
      return reply.code(204).send(null);
    },
  });

  app.delete('/users/:id/second-factors', {
    schema: {
      tags, summary: 'Remove every second factor of the user and end their browser sessions (If-Match optional)', operationId: 'adminResetUserSecondFactors',
      params: UserParams, response: { 204: Type.Null({ description: 'Removed' }), ...problemResponses(401, 403, 404, 412) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      await optionalVersion(request, request.params.id);
      const { user } = await find(request.params.id);
      await resetSecondFactors(services, user, actingAs(request));
      return reply.code(204).send(null);
    },
  });
}
