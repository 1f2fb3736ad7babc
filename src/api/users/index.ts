// /v1/users: the accounts that log in (`sub` = id). Each route is a short pipeline: scope (preHandler)
// → object-level visibility (404 for others' objects) → preconditions → validation → storage → response.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from '../deps.js';
import type { User } from '../../storage/repositories/users-repository.js';
import { checkPreconditions, setValidators } from '../../http/conditional.js';
import { MERGE_PATCH } from '../../http/json-body.js';
import { problemResponses } from '../../http/openapi-schemas.js';
import { authenticatedPrincipal, notFound, requireScope } from '../../resource-server/auth/index.js';
import { CreateUserSchema, MergePatchSchema, ReplaceUserSchema, UserParamsSchema, UserSchema, type ReplaceUserBody } from './user-schemas.js';
import { representUser, userPath, validatorsOf } from './user-representation.js';
import { createUser, deleteUser, replaceUser, userIfVisible, visibleUser } from './users-service.js';
import { validateUser } from './user-input.js';
import { patchedUser } from './patch-user.js';
import { ProblemError } from '../../http/errors.js';

const tags = ['users'];

export type UsersServices = Pick<ApiDeps, 'config' | 'clock' | 'store' | 'rateLimits' | 'users' | 'outbox'>;

export async function usersRoutes(parent: FastifyInstance, { services: core }: { services: UsersServices }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { users } = core;
  const accounts = { store: core.store, clock: core.clock, rateLimits: core.rateLimits, outbox: core.outbox };
  const prefix = app.prefix;

  /** 200 with the representation and its validators, or 304 when the client's copy is current. */
  function sendUser(request: FastifyRequest, reply: FastifyReply, user: User, status = 200) {
    const validators = validatorsOf(user);
    if (request.method === 'GET' || request.method === 'HEAD') {
      if (!checkPreconditions(request, reply, validators)) return reply.send();
    }
    setValidators(reply, validators);
    return reply.code(status).send(representUser(user, prefix));
  }

  /**
   * The target of a write: a missing user the caller could reach still has its preconditions evaluated
   * (`If-Match: *` on nothing is 412, RFC 9110 §13.1.1) before the 404.
   */
  async function writeTarget(request: FastifyRequest, reply: FastifyReply, id: string): Promise<User> {
    const user = await userIfVisible(users, authenticatedPrincipal(request), id);
    if (!user) {
      checkPreconditions(request, reply, undefined);
      throw notFound('user');
    }
    return user;
  }

  /** If-Match / If-Unmodified-Since / If-None-Match on a write; returns the version to write against. */
  function writePreconditions(request: FastifyRequest, reply: FastifyReply, user: User): number | undefined {
    checkPreconditions(request, reply, validatorsOf(user));
    return request.headers['if-match'] !== undefined || request.headers['if-unmodified-since'] !== undefined ? user.version : undefined;
  }

  app.get(
    '/users/me',
    {
      schema: {
        tags,
        summary: 'The user the access token was issued for',
        operationId: 'getCurrentUser',
        response: { 200: UserSchema, ...problemResponses(401, 403, 404, 406) },
      },
      preHandler: requireScope('users:read'),
    },
    async (request, reply) => {
      const principal = authenticatedPrincipal(request);
      if (principal.kind !== 'user') throw notFound('user: this token was not issued for a user');
      return sendUser(request, reply, await visibleUser(users, principal, principal.sub));
    },
  );

  app.get(
    '/users/:id',
    {
      schema: {
        tags,
        summary: 'Read a user',
        operationId: 'getUser',
        params: UserParamsSchema,
        response: { 200: UserSchema, ...problemResponses(401, 403, 404, 406) },
      },
      preHandler: requireScope('users:read'),
    },
    async (request, reply) => sendUser(request, reply, await visibleUser(users, authenticatedPrincipal(request), request.params.id)),
  );

  app.post(
    '/users',
    {
      schema: {
        tags,
        summary: 'Create a user (service clients)',
        operationId: 'createUser',
        body: CreateUserSchema,
        response: { 201: UserSchema, ...problemResponses(400, 401, 403, 406, 409, 415, 422) },
      },
      preHandler: requireScope('users:write'),
    },
    async (request, reply) => {
      const principal = authenticatedPrincipal(request);
      if (principal.kind !== 'service') throw new ProblemError('forbidden', 'Only service clients create users.');
      validateUser(request.body);
      const user = await createUser(users, request.body);
      reply.header('location', `${core.config.ISSUER}${userPath(prefix, user.id)}`);
      return sendUser(request, reply, user, 201);
    },
  );

  async function replaceWith(request: FastifyRequest, reply: FastifyReply, current: User, document: ReplaceUserBody, expectedVersion: number | undefined) {
    validateUser(document, current);
    const deps = { users, accounts, principal: authenticatedPrincipal(request) };
    return sendUser(request, reply, await replaceUser(deps, current, document, expectedVersion));
  }

  app.put(
    '/users/:id',
    {
      schema: {
        tags,
        summary: 'Replace a user',
        operationId: 'replaceUser',
        params: UserParamsSchema,
        body: ReplaceUserSchema,
        response: { 200: UserSchema, ...problemResponses(400, 401, 403, 404, 406, 409, 412, 415, 422) },
      },
      preHandler: requireScope('users:write'),
    },
    async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      const expectedVersion = writePreconditions(request, reply, current);
      return replaceWith(request, reply, current, request.body, expectedVersion);
    },
  );

  app.patch(
    '/users/:id',
    {
      schema: {
        tags,
        summary: 'Change some fields of a user (RFC 7396 merge patch)',
        operationId: 'patchUser',
        params: UserParamsSchema,
        body: { content: { [MERGE_PATCH]: { schema: MergePatchSchema } } },
        response: { 200: UserSchema, ...problemResponses(400, 401, 403, 404, 406, 409, 412, 415, 422) },
      },
      config: { bodyMediaTypes: [MERGE_PATCH] },
      preHandler: requireScope('users:write'),
    },
    async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      const expectedVersion = writePreconditions(request, reply, current);
      const document = patchedUser(representUser(current, prefix), request.body);
      return replaceWith(request, reply, current, document, expectedVersion);
    },
  );

  app.delete(
    '/users/:id',
    {
      schema: {
        tags,
        summary: 'Delete a user',
        operationId: 'deleteUser',
        params: UserParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(401, 403, 404, 409, 412) },
      },
      preHandler: requireScope('users:write'),
    },
    async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      writePreconditions(request, reply, current);
      await deleteUser(users, current.id);
      return reply.code(204).send(null);
    },
  );
}
