// /admin/v1/users: create (Idempotency-Key required; a password is required), read (strong ETag), list
// (cursor pages, prefix search), replace, merge-patch and delete (If-Match required: 428 without, 412 when
// stale) as a versioned resource (../versioned-resource.ts), plus setting a password (ends the user's
// sessions and refresh tokens) and resetting the second factors. Custom attributes are a member like the
// others: written in the same version-guarded UPDATE as the profile. Every rule is in
// src/admin-services/users-service.ts and user-attributes.ts, shared with the CLI (`gatehouse users ...`).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { setValidators } from '../../http/conditional.js';
import { problemResponses } from '../../http/openapi-schemas.js';
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
  type UserServiceDeps,
} from '../../admin-services/users-service.js';
import type { User } from '../../storage/repositories/users-repository.js';
import { NO_SECOND_FACTORS, type SecondFactors } from '../../storage/repositories/user-admin-repository.js';
import { actingAs, ADMIN_WRITE } from '../acting-as.js';
import { asProblems } from '../service-errors.js';
import { versionedResource } from '../versioned-resource.js';
import { attributeSearchOf } from './attribute-search.js';
import { userIdentitiesRoutes } from './identities-routes.js';
import { patchedUser, representUser, userInput, userValidators } from './representation.js';
import { CreateUserSchema, SetPasswordSchema, UserInputSchema, UserSchema } from './schemas.js';

const tags = ['admin: users'];
/** A user with the second factors set up (passkeys included): the representation and the ETag show both. */
interface Found {
  user: User;
  factors: SecondFactors;
}

const SearchQuery = {
  q: Type.Optional(Type.String({ description: 'Case-insensitive prefix of the username or the e-mail address', maxLength: 200 })),
  attribute: Type.Optional(
    Type.String({
      description: 'NAME:VALUE — users whose custom attribute NAME equals VALUE (text, or the number or boolean it reads as) or is an array holding it',
      maxLength: 1000,
    }),
  ),
};
const searchOf = (query: { q?: string | undefined }) => query.q?.trim() || undefined;

export async function adminUsersRoutes(
  parent: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'idempotency' | 'cursors'>; services: UserServiceDeps },
): Promise<void> {
  const factorsOf = async (user: User) => (await secondFactorsOf(services, [user.id])).get(user.id) ?? NO_SECOND_FACTORS;

  const users = versionedResource(parent, core, {
    path: 'users',
    name: 'user',
    operation: 'User',
    schema: UserSchema,
    represent: ({ user, factors }: Found) => representUser(user, factors),
    validators: ({ user, factors }) => userValidators(user, factors),
    idOf: ({ user }) => user.id,
    find: async (id) => {
      const user = await findUserRecord(services, id);
      return { user, factors: await factorsOf(user) };
    },
    conflicts: true,
    list: {
      summary: 'List users, oldest first (cursor pages; q: prefix of username or e-mail; attribute: NAME:VALUE)',
      query: SearchQuery,
      // A cursor is bound to its search: it cannot continue a page of another one.
      scope: (query) => `admin-users\n${searchOf(query)?.toLowerCase() ?? ''}\n${query.attribute ?? ''}`,
      rows: async (query, page) => {
        const search = searchOf(query);
        const attribute = attributeSearchOf(query.attribute);
        const rows = await listUserRecords(services, { ...page, ...(search ? { search } : {}), ...(attribute ? { attribute } : {}) });
        const factors = await secondFactorsOf(
          services,
          rows.map((u) => u.id),
        );
        return rows.map((user) => ({ user, factors: factors.get(user.id) ?? NO_SECOND_FACTORS }));
      },
      position: ({ user }) => ({ createdAt: user.createdAt, id: user.id }),
    },
    create: {
      summary: 'Create a user (Idempotency-Key required; a password is required)',
      body: CreateUserSchema,
      run: async ({ password, ...rest }, tx, as) => ({
        row: { user: await createUserRecord({ ...services, store: tx }, { ...userInput(rest), password }, as), factors: NO_SECOND_FACTORS },
      }),
    },
    update: {
      summaries: {
        replace: "Replace a user's profile and attributes (If-Match required)",
        patch: 'Change some members of a user (RFC 7396 merge patch; If-Match required)',
      },
      body: UserInputSchema,
      replaced: (_current, body) => userInput(body),
      patched: ({ user, factors }, patch) => patchedUser(user, factors, patch),
      save: async ({ user, factors }, fields, as) => ({ user: await updateUserRecord(services, user, fields, as, user.version), factors }),
    },
    remove: {
      summary: 'Delete a user and end all their sessions and tokens (If-Match required)',
      run: ({ user }, as) => deleteUserRecord(services, user.id, as, user.version),
    },
  });

  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const UserParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

  app.post('/users/:id/password', {
    schema: {
      tags,
      summary: 'Set a new password; ends every session and refresh token of the user (If-Match optional)',
      operationId: 'adminSetUserPassword',
      params: UserParams,
      body: SetPasswordSchema,
      response: { 204: Type.Null({ description: 'Set' }), ...problemResponses(400, 401, 403, 404, 406, 412, 413, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const expectedVersion = (await users.pinned(request, request.params.id))?.user.version;
      const user = await asProblems('user', () => setUserPassword(services, request.params.id, request.body.password, actingAs(request), expectedVersion));
      setValidators(reply, userValidators(user, await factorsOf(user)));
      return reply.code(204).send(null);
    },
  });

  app.delete('/users/:id/second-factors', {
    schema: {
      tags,
      summary: 'Remove every second factor of the user and end their browser sessions (If-Match optional)',
      operationId: 'adminResetUserSecondFactors',
      params: UserParams,
      response: { 204: Type.Null({ description: 'Removed' }), ...problemResponses(401, 403, 404, 412) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      await users.pinned(request, request.params.id);
      const { user } = await users.find(request.params.id);
      await resetSecondFactors(services, user, actingAs(request));
      return reply.code(204).send(null);
    },
  });

  userIdentitiesRoutes(parent, services);
}
