// /admin/v1/signing-keys: every signing key with its schedule (never private material), read with a strong
// ETag, and rotation (POST /signing-keys/rotations, Idempotency-Key required) on the schedule of
// docs/key-rotation.md. Rules: src/admin-services/signing-keys-service.ts, shared with `gatehouse keys`.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { checkPreconditions, setValidators, strongEtag, type Validators } from '../../http/conditional.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { notModified, problemResponses } from '../../http/openapi-schemas.js';
import { pagedResponse, pageQueryProperties, parsePageQuery, sendPage } from '../../http/pagination/index.js';
import { requireScope } from '../../resource-server/auth/index.js';
import { findSigningKey, listSigningKeys, rotateSigningKeys, type SigningKeyServiceDeps } from '../../admin-services/signing-keys-service.js';
import { SIGNING_ALGS, type KeyScheduleEntry, type SigningAlg } from '../../crypto/keys.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from '../acting-as.js';
import { asProblems } from '../service-errors.js';

const tags = ['admin: signing keys'];

const KeySchema = Type.Object({
  kid: Type.String(),
  alg: Type.String(),
  state: Type.String({ description: 'pending (published, not signing yet), active, retired (published, no longer signing) or expired' }),
  published_at: Type.String({ format: 'date-time', description: 'Served in the JWKS from here on' }),
  activates_at: Type.String({ format: 'date-time', description: 'Signs from here on' }),
  retires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Stops signing (a newer key activates)' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Leaves the JWKS: nothing it signed is valid any more' }),
});

const ListSchema = Type.Object({
  data: Type.Array(KeySchema),
  pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }),
});

const ListQuery = Type.Object({ limit: pageQueryProperties.limit, cursor: pageQueryProperties.cursor }, { additionalProperties: false });
const KeyParams = Type.Object({ kid: Type.String({ maxLength: 200 }) });
const RotationSchema = Type.Object(
  {
    alg: Type.Optional(
      Type.Union(
        SIGNING_ALGS.map((a) => Type.Literal(a)),
        { description: 'One algorithm (default: every one)' },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The schedule only: the row's sealed private key and its public JWK (served at /jwks) are not part of it. */
const representKey = (k: KeyScheduleEntry) => ({
  kid: k.kid,
  alg: k.alg,
  state: k.state,
  published_at: k.published_at,
  activates_at: k.activates_at,
  retires_at: k.retires_at,
  expires_at: k.expires_at,
});

// The state moves with the clock, so it is part of the tag as well as the schedule columns.
const keyValidators = (k: KeyScheduleEntry): Validators => ({
  etag: strongEtag('signing-key', k.kid, k.state, k.retires_at ?? '', k.expires_at ?? ''),
  lastModified: new Date(k.published_at),
});

const position = (k: KeyScheduleEntry) => ({ createdAt: new Date(k.published_at), id: k.kid });
const after = (k: KeyScheduleEntry, p: { createdAt: Date; id: string }) => {
  const at = new Date(k.published_at).getTime();
  return at > p.createdAt.getTime() || (at === p.createdAt.getTime() && k.kid > p.id);
};

export async function adminSigningKeysRoutes(
  parent: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'idempotency' | 'cursors'>; services: SigningKeyServiceDeps },
): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { idempotency, cursors } = core;

  app.get('/signing-keys', {
    schema: {
      tags,
      summary: 'List signing keys with their schedule, oldest first (cursor pages)',
      operationId: 'adminListSigningKeys',
      querystring: ListQuery,
      response: { 200: ListSchema, ...problemResponses(400, 401, 403, 406, 422) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const scope = 'admin-signing-keys';
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const from = page.style === 'cursor' ? page.after : undefined;
      // The key set is small (two rows per rotation): the page is cut from the whole ordered schedule.
      const rows = (await listSigningKeys(services)).filter((k) => !from || after(k, from)).slice(0, page.limit + 1);
      return sendPage(
        reply,
        pagedResponse(rows, page, {
          requestUrl: new URL(request.url, core.config.ISSUER),
          position,
          represent: representKey,
          cursors: { codec: cursors, scope },
        }),
      );
    },
  });

  app.get('/signing-keys/:kid', {
    schema: {
      tags,
      summary: "Read a signing key's schedule (strong ETag)",
      operationId: 'adminGetSigningKey',
      params: KeyParams,
      response: { 200: KeySchema, ...notModified, ...problemResponses(401, 403, 404, 406) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const key = await asProblems('signing key', () => findSigningKey(services, request.params.kid));
      if (!checkPreconditions(request, reply, keyValidators(key))) return reply.send();
      setValidators(reply, keyValidators(key));
      return representKey(key);
    },
  });

  type Rotate = { Body: Static<typeof RotationSchema> };
  app.post('/signing-keys/rotations', {
    schema: {
      tags,
      summary: "Rotate: publish a new key per algorithm, signing after the schedule's margin (Idempotency-Key required)",
      operationId: 'adminRotateSigningKeys',
      body: RotationSchema,
      headers: idempotencyKeyHeader(true),
      response: { 201: Type.Object({ rotated: Type.Array(KeySchema) }), ...problemResponses(400, 401, 403, 406, 409, 413, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    ...idempotency.route<Rotate>({ required: true }, async (request, tx) => {
      const algs: readonly SigningAlg[] = request.body.alg ? [request.body.alg] : SIGNING_ALGS;
      const rotated = await asProblems('signing key', () => rotateSigningKeys({ ...services, store: tx }, algs, actingAs(request)));
      return { status: 201, body: { rotated: rotated.map(representKey) } };
    }),
  });
}
