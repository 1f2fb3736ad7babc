// /admin/v1/clients: create (Idempotency-Key required; the secret is shown only there), read (strong ETag),
// list (cursor pages), replace, merge-patch and delete (If-Match required: 428 without, 412 when stale) as a
// versioned resource (../versioned-resource.ts), plus secret rotation with an overlap window. Every rule is
// in src/admin-services/clients-service.ts, shared with the CLI.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { problemResponses } from '../../http/openapi-schemas.js';
import { validationFailed } from '../../http/validation.js';
import { requireScope } from '../../resource-server/auth/index.js';
import {
  createClientRecord,
  endClientRecord,
  findClientRecord,
  listClientRecords,
  replaceClientRecord,
  rotateClientSecret,
  type ClientServiceDeps,
} from '../../admin-services/clients-service.js';
import { actingAs, ADMIN_WRITE } from '../acting-as.js';
import { asProblems } from '../service-errors.js';
import { versionedResource } from '../versioned-resource.js';
import { clientInput, clientValidators, patchedClient, representClient } from './representation.js';
import { ClientInputSchema, ClientParams, ClientSchema, CreatedClientSchema, RotatedSecretSchema, RotateSecretSchema } from './schemas.js';

type Rotate = { Params: Static<typeof ClientParams>; Body: Static<typeof RotateSecretSchema> };

export async function adminClientsRoutes(
  parent: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'idempotency' | 'cursors'>; services: ClientServiceDeps },
): Promise<void> {
  const clients = versionedResource(parent, core, {
    path: 'clients',
    name: 'client',
    operation: 'Client',
    schema: ClientSchema,
    represent: representClient,
    validators: clientValidators,
    idOf: (client) => client.id,
    find: (id) => findClientRecord(services, id),
    list: {
      summary: 'List clients, oldest first (cursor pages)',
      rows: (_query, page) => listClientRecords(services, page),
      position: (client) => ({ createdAt: client.createdAt, id: client.id }),
    },
    create: {
      summary: 'Register a client (Idempotency-Key required; the secret is shown only here)',
      body: ClientInputSchema,
      response: CreatedClientSchema,
      run: async (body, tx, as) => {
        const { client, secret } = await createClientRecord({ ...services, store: tx }, clientInput(body), as);
        return { row: client, ...(secret === undefined ? {} : { once: { client_secret: secret } }) };
      },
    },
    update: {
      summaries: {
        replace: "Replace a client's settings (If-Match required)",
        patch: 'Change some settings of a client (RFC 7396 merge patch; If-Match required)',
      },
      body: ClientInputSchema,
      replaced: (_current, body) => body,
      patched: patchedClient,
      save: (current, document, as) => replaceClientRecord(services, current, clientInput(document), current.version, as),
    },
    remove: {
      summary: 'Delete a client and end all its tokens (If-Match required)',
      run: (current, as) => endClientRecord(services, current.id, 'delete', as, current.version),
    },
  });

  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/clients/:id/secrets', {
    schema: {
      tags: ['admin: clients'],
      summary: 'Rotate the client secret; the previous one stays valid until previous_secret_expires_at (Idempotency-Key required)',
      operationId: 'adminRotateClientSecret',
      params: ClientParams,
      body: RotateSecretSchema,
      headers: idempotencyKeyHeader(true),
      response: { 201: RotatedSecretSchema, ...problemResponses(400, 401, 403, 404, 406, 409, 412, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    ...core.idempotency.route<Rotate>({ required: true }, async (request, tx) => {
      const expires = request.body.previous_secret_expires_at;
      const previousExpiresAt = expires === undefined ? undefined : new Date(expires);
      if (previousExpiresAt && (Number.isNaN(previousExpiresAt.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(expires!))) {
        throw validationFailed([{ field: 'previous_secret_expires_at', message: 'must be an RFC 3339 date-time' }]);
      }
      // An If-Match, when sent, pins the rotation to the version read (the rotation itself needs none: it loses no update).
      const inTx = { ...services, store: tx };
      const expectedVersion = (await clients.pinned(request, request.params.id, (id) => findClientRecord(inTx, id)))?.version;
      const { client, secret } = await asProblems('client', () =>
        rotateClientSecret(
          inTx,
          request.params.id,
          { ...(previousExpiresAt ? { previousExpiresAt } : {}), ...(expectedVersion !== undefined ? { expectedVersion } : {}) },
          actingAs(request),
        ),
      );
      const expiresAt = (client.previousSecretExpiresAt ?? new Date(core.clock.now())).toISOString();
      const body = { client_id: client.id, previous_secret_expires_at: expiresAt };
      return { status: 201, headers: { etag: clientValidators(client).etag }, body: { ...body, client_secret: secret }, replayBody: body };
    }),
  });
}
