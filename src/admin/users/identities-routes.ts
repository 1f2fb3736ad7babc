// /admin/v1/users/{id}/identities: the user's links to upstream identity providers (docs/federation.md), and
// removing one. A link is named by its provider's id (or slug): a user has at most one per provider. The list
// is bounded by the number of providers, so it is one page (`has_more` is false). DELETE under If-Match (428
// without, 412 stale); 409 when the link is the user's last way to sign in. Rules:
// src/admin-services/user-identities-service.ts, shared with `gatehouse users identities`.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { checkPreconditions, requireIfMatch, setValidators, strongEtag, type Validators } from '../../http/conditional.js';
import { notModified, problemResponses } from '../../http/openapi-schemas.js';
import { requireScope } from '../../resource-server/auth/index.js';
import { findUserIdentity, identityView, listUserIdentities, removeUserIdentity, type UserIdentity } from '../../admin-services/user-identities-service.js';
import type { UserAccessServiceDeps } from '../../admin-services/user-access-service.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from '../acting-as.js';
import { asProblems } from '../service-errors.js';

const tags = ['admin: users'];
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const IdentitySchema = Type.Object({
  id: Type.String({ description: 'The provider’s id: a user has at most one link per provider' }),
  user_id: Type.String(),
  provider: Type.Union([Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() }), Type.Null()]),
  subject: Type.String({ description: 'The upstream `sub` (or, for plain OAuth 2.0, the mapped id)' }),
  email: Nullable(Type.String({ description: 'The e-mail address the upstream last asserted' })),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
  upstream_tokens: Type.Union(
    [
      Type.Object({
        stored_at: Type.String({ format: 'date-time', description: 'The sign-in whose tokens are kept' }),
        expires_at: Nullable(Type.String({ format: 'date-time', description: 'When the access token expires (null: the upstream did not say)' })),
        refresh_token: Type.Boolean({ description: 'Whether a refresh token is kept too' }),
        scope: Nullable(Type.String({ description: 'The scope the upstream granted, when it said' })),
      }),
      Type.Null(),
    ],
    { description: "The provider's --store-tokens: whether the upstream's tokens are kept, sealed (never the tokens themselves)" },
  ),
});
const ListSchema = Type.Object({
  data: Type.Array(IdentitySchema),
  pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Null(), has_more: Type.Boolean() }),
});
const UserParams = Type.Object({ id: Type.String({ maxLength: 200 }) });
const IdentityParams = Type.Object({ id: Type.String({ maxLength: 200 }), provider: Type.String({ maxLength: 200 }) });

const validators = (i: UserIdentity): Validators => ({
  etag: strongEtag('identity', i.providerId, i.subject, i.userId, i.createdAt.getTime()),
  lastModified: i.createdAt,
});

export function userIdentitiesRoutes(parent: FastifyInstance, services: UserAccessServiceDeps): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/users/:id/identities', {
    schema: {
      tags,
      summary: 'List the user’s links to upstream identity providers',
      operationId: 'adminListUserIdentities',
      params: UserParams,
      response: { 200: ListSchema, ...problemResponses(401, 403, 404, 406) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request) => {
      const data = (await asProblems('user', () => listUserIdentities(services, request.params.id))).map(identityView);
      return { data, pagination: { limit: data.length, next_cursor: null, has_more: false } };
    },
  });

  app.get('/users/:id/identities/:provider', {
    schema: {
      tags,
      summary: 'Read one link of the user (strong ETag)',
      operationId: 'adminGetUserIdentity',
      params: IdentityParams,
      response: { 200: IdentitySchema, ...notModified, ...problemResponses(401, 403, 404, 406) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const identity = await asProblems('identity link', () => findUserIdentity(services, request.params.id, request.params.provider));
      if (!checkPreconditions(request, reply, validators(identity))) return reply.send();
      setValidators(reply, validators(identity));
      return identityView(identity);
    },
  });

  app.delete('/users/:id/identities/:provider', {
    schema: {
      tags,
      summary: 'Remove a link of the user; never their last way to sign in (If-Match required)',
      operationId: 'adminDeleteUserIdentity',
      params: IdentityParams,
      response: { 204: Type.Null({ description: 'Unlinked' }), ...problemResponses(401, 403, 404, 409, 412, 428) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      requireIfMatch(request);
      const identity = await asProblems('identity link', () => findUserIdentity(services, request.params.id, request.params.provider));
      checkPreconditions(request, reply, validators(identity));
      await asProblems('identity link', () => removeUserIdentity(services, identity, actingAs(request)));
      return reply.code(204).send(null);
    },
  });
}
