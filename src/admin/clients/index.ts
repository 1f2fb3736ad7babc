// /admin/v1/clients: create (Idempotency-Key required), read (strong ETag), list (cursor pages), replace,
// merge-patch and delete (If-Match required: 428 without, 412 when stale), and secret rotation with an
// overlap window. Every rule is in src/admin-services/clients-service.ts, shared with the CLI.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import type { Core } from '../../core.js';
import { checkPreconditions, evaluatePreconditions, requireIfMatch, setValidators } from '../../http/conditional.js';
import { ProblemError } from '../../http/errors.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { MERGE_PATCH } from '../../http/json-body.js';
import { notModified, problemResponses } from '../../http/openapi-schemas.js';
import { pagedResponse, sendPage, parsePageQuery } from '../../http/pagination/index.js';
import { validationFailed } from '../../http/validation.js';
import { requireScope } from '../../resource-server/auth/index.js';
import { createClientRecord, endClientRecord, findClientRecord, listClientRecords, replaceClientRecord, rotateClientSecret, type ClientServiceDeps } from '../../admin-services/clients-service.js';
import type { Client } from '../../storage/clients-repository.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from '../acting-as.js';
import { asProblems } from '../service-errors.js';
import { clientInput, clientPath, clientValidators, patchedClient, representClient } from './representation.js';
import { ClientInputSchema, ClientListSchema, ClientParams, ClientSchema, CreatedClientSchema, ListQuery, RotatedSecretSchema, RotateSecretSchema, type ClientInputBody } from './schemas.js';

const tags = ['admin: clients'];
type Rotate = { Params: Static<typeof ClientParams>; Body: Static<typeof RotateSecretSchema> };

export async function adminClientsRoutes(parent: FastifyInstance, { core, services }: { core: Core & Pick<Services, 'idempotency' | 'cursors'>; services: ClientServiceDeps }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { idempotency, cursors } = core;
  const prefix = app.prefix;
  const location = (id: string) => `${core.config.ISSUER}${clientPath(prefix, id)}`;

  const find = (id: string) => asProblems('client', () => findClientRecord(services, id));

  function send(request: FastifyRequest, reply: FastifyReply, client: Client) {
    if (!checkPreconditions(request, reply, clientValidators(client))) return reply.send();
    setValidators(reply, clientValidators(client));
    return representClient(client);
  }

  /** The target of a PUT/PATCH/DELETE: If-Match required and matching; the version it matched is the one written against. */
  async function writeTarget(request: FastifyRequest, reply: FastifyReply, id: string): Promise<Client> {
    requireIfMatch(request);
    const client = await find(id);
    checkPreconditions(request, reply, clientValidators(client));
    return client;
  }

  app.post('/clients', {
    schema: {
      tags, summary: 'Register a client (Idempotency-Key required; the secret is shown only here)', operationId: 'adminCreateClient', body: ClientInputSchema,
      headers: idempotencyKeyHeader(true), response: { 201: CreatedClientSchema, ...problemResponses(400, 401, 403, 406, 409, 413, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    ...idempotency.route<{ Body: ClientInputBody }>({ required: true }, async (request, tx) => {
      const { client, secret } = await asProblems('client', () => createClientRecord({ ...services, db: tx }, clientInput(request.body), actingAs(request)));
      const body = representClient(client);
      // The replay of a retried create repeats everything but the secret, which is never stored.
      return { status: 201, headers: { location: location(client.id), etag: clientValidators(client).etag }, body: secret === undefined ? body : { ...body, client_secret: secret }, replayBody: body };
    }),
  });

  app.get('/clients', {
    schema: { tags, summary: 'List clients, oldest first (cursor pages)', operationId: 'adminListClients', querystring: ListQuery, response: { 200: ClientListSchema, ...problemResponses(400, 401, 403, 406, 422) } },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const scope = 'admin-clients';
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const after = page.style === 'cursor' ? page.after : undefined;
      const rows = await listClientRecords(services, { ...(after ? { after } : {}), limit: page.limit + 1 });
      return sendPage(reply, pagedResponse(rows, page, {
        requestUrl: new URL(request.url, core.config.ISSUER),
        position: (c: Client) => ({ createdAt: c.createdAt, id: c.id }),
        represent: representClient,
        cursors: { codec: cursors, scope },
      }));
    },
  });

  app.get('/clients/:id', {
    schema: { tags, summary: 'Read a client (strong ETag)', operationId: 'adminGetClient', params: ClientParams, response: { 200: ClientSchema, ...notModified, ...problemResponses(401, 403, 404, 406) } },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => send(request, reply, await find(request.params.id)),
  });

  async function replace(request: FastifyRequest, reply: FastifyReply, current: Client, document: ClientInputBody) {
    const updated = await asProblems('client', () => replaceClientRecord(services, current, clientInput(document), current.version, actingAs(request)));
    setValidators(reply, clientValidators(updated));
    return representClient(updated);
  }

  const writeResponses = { 200: ClientSchema, ...problemResponses(400, 401, 403, 404, 406, 412, 413, 415, 422, 428) };

  app.put('/clients/:id', {
    schema: { tags, summary: 'Replace a client\'s settings (If-Match required)', operationId: 'adminReplaceClient', params: ClientParams, body: ClientInputSchema, response: writeResponses },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => replace(request, reply, await writeTarget(request, reply, request.params.id), request.body),
  });

  app.patch('/clients/:id', {
    schema: {
      tags, summary: 'Change some settings of a client (RFC 7396 merge patch; If-Match required)', operationId: 'adminPatchClient', params: ClientParams,
      body: { content: { [MERGE_PATCH]: { schema: Type.Object({}, { additionalProperties: true }) } } }, response: writeResponses,
    },
    config: { bodyMediaTypes: [MERGE_PATCH] },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      return replace(request, reply, current, patchedClient(current, request.body));
    },
  });

  app.delete('/clients/:id', {
    schema: {
      tags, summary: 'Delete a client and end all its tokens (If-Match required)', operationId: 'adminDeleteClient', params: ClientParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(401, 403, 404, 412, 428) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      const current = await writeTarget(request, reply, request.params.id);
      await asProblems('client', () => endClientRecord(services, current.id, 'delete', actingAs(request), current.version));
      return reply.code(204).send(null);
    },
  });

  app.post('/clients/:id/secrets', {
    schema: {
      tags, summary: 'Rotate the client secret; the previous one stays valid until previous_secret_expires_at (Idempotency-Key required)', operationId: 'adminRotateClientSecret',
      params: ClientParams, body: RotateSecretSchema, headers: idempotencyKeyHeader(true), response: { 201: RotatedSecretSchema, ...problemResponses(400, 401, 403, 404, 406, 409, 412, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    ...idempotency.route<Rotate>({ required: true }, async (request, tx) => {
      const expires = request.body.previous_secret_expires_at;
      const previousExpiresAt = expires === undefined ? undefined : new Date(expires);
      if (previousExpiresAt && (Number.isNaN(previousExpiresAt.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(expires!))) {
        throw validationFailed([{ field: 'previous_secret_expires_at', message: 'must be an RFC 3339 date-time' }]);
      }
      // An If-Match, when sent, pins the rotation to the version read (the rotation itself needs none: it loses no update).
      const inTx = { ...services, db: tx };
      let expectedVersion: number | undefined;
      if (request.headers['if-match'] !== undefined) {
        const current = await asProblems('client', () => findClientRecord(inTx, request.params.id));
        if (evaluatePreconditions(request.method, request.headers, clientValidators(current)) === 'failed') {
          throw new ProblemError('precondition-failed', 'The client changed since it was read; read it again and retry with the new ETag.');
        }
        expectedVersion = current.version;
      }
      const { client, secret } = await asProblems('client', () =>
        rotateClientSecret(inTx, request.params.id, { ...(previousExpiresAt ? { previousExpiresAt } : {}), ...(expectedVersion !== undefined ? { expectedVersion } : {}) }, actingAs(request)),
      );
      const expiresAt = (client.previousSecretExpiresAt ?? new Date(core.clock.now())).toISOString();
      const body = { client_id: client.id, previous_secret_expires_at: expiresAt };
      return { status: 201, headers: { etag: clientValidators(client).etag }, body: { ...body, client_secret: secret }, replayBody: body };
    }),
  });
}
