// One /admin/v1 resource as a declaration (model: Logto's SchemaRouter, typed with TypeBox): give
// `versionedResource` the schemas, the representation and the service calls, and it registers the routes
// every admin resource answers in the same way (docs/admin-api.md, "Adding a resource"):
//
//   POST   /{path}       create    Idempotency-Key required; 201 with Location and ETag. `once` members (a
//                                  secret) are in this response only: a replay repeats it without them
//   GET    /{path}       list      cursor pages ({data, pagination}, Link rel="next"), oldest first; the
//                                  cursor is bound to the list's `scope` (its filter)
//   GET    /{path}/{id}  read      strong ETag, If-None-Match → 304
//   PUT    /{path}/{id}  replace   If-Match required (428 without, 412 stale); the service writes against
//   PATCH  /{path}/{id}  patch     the version that matched, so of two writes with one ETag one wins.
//   DELETE /{path}/{id}  delete    PATCH is an RFC 7396 merge patch; DELETE answers 204
//
// Every operation but the read is optional: leave it out and its route does not exist. OPTIONS, `Allow`
// and `Accept-Patch` come from collectOptionsRoutes (src/resource-server/options-route.ts) for every URL
// registered here. Service errors leave as Problem Details through asProblems ("No such client." …).
// Special actions (rotate a secret, set a password) stay ordinary routes beside the declaration; the
// returned `find` and `pinned` give them the same 404 and 412 as the routes here.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TObject, type TProperties, type TSchema, type TString } from '@sinclair/typebox';
import type { Config } from '../config.js';
import { checkPreconditions, evaluatePreconditions, requireIfMatch, setValidators, type Validators } from '../http/conditional.js';
import { ProblemError } from '../http/errors.js';
import { idempotencyKeyHeader, type Idempotency } from '../http/idempotency/index.js';
import { MERGE_PATCH } from '../http/json-body.js';
import { notModified, problemResponses } from '../http/openapi-schemas.js';
import {
  pagedResponse,
  pageQueryProperties,
  parsePageQuery,
  sendPage,
  type CursorCodec,
  type CursorPosition,
  type PageQuery,
} from '../http/pagination/index.js';
import { requireScope } from '../resource-server/auth/index.js';
import type { Store } from '../storage/store.js';
import type { ActingAs } from '../admin-services/clients-service.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from './acting-as.js';
import { asProblems } from './service-errors.js';

export interface VersionedResource<Row, Item extends TSchema, Query extends TProperties, Create extends TSchema, Replace extends TSchema, Input> {
  /** The URL segment, also the OpenAPI tag (`admin: clients`) unless `tag` says otherwise. */
  path: string;
  tag?: string;
  /** For problems: "No such client.", "The client changed since it was read …". */
  name: string;
  /** For operation ids: `Client` → adminCreateClient, adminListClients, adminGetClient, …, adminDeleteClient. */
  operation: string;
  /** The `{id}` path parameter (default: a string of at most 200 characters). */
  id?: TString;
  /** The representation's schema: it serialises every answer (so nothing else leaves) and documents it. */
  schema: Item;
  represent(row: Row): Static<Item>;
  /** Strong validators that change with every write (the row's version, and anything else the representation shows). */
  validators(row: Row): Validators;
  /** The row's id in URLs (Location). */
  idOf(row: Row): string;
  /** The row, or the service's not-found (→ 404). */
  find(id: string): Promise<Row>;
  /** The read's summary, when "Read a {name} (strong ETag)" does not fit. */
  readSummary?: string;
  /** Whether PUT, PATCH and DELETE may answer 409 (a taken name, a built-in, a row still referenced); for the document. */
  conflicts?: boolean;
  list?: {
    summary: string;
    /** Filter parameters besides `limit` and `cursor`. */
    query?: Query;
    /** What the cursor is bound to (default `admin-{path}`): a filtered list puts its filter in. */
    scope?(query: Static<TObject<Query>>): string;
    /** Up to `limit` rows after `after`, in (created_at, id) order. */
    rows(query: Static<TObject<Query>>, page: { after?: CursorPosition; limit: number }): Promise<Row[]>;
    position(row: Row): CursorPosition;
  };
  create?: {
    summary: string;
    body: Create;
    /** The 201's schema, when it has more than the representation (a secret shown once). */
    response?: TSchema;
    /** Writes through `tx`, the idempotency key's transaction. `once`: members sent now and never replayed. */
    run(body: Static<Create>, tx: Store, as: ActingAs): Promise<{ row: Row; once?: Record<string, unknown> }>;
  };
  update?: {
    summaries: { replace: string; patch: string };
    /** PUT's body: the whole writable document. */
    body: Replace;
    /** The service input of a PUT document, and of the document a merge patch produces (422 read-only, 400 shape). */
    replaced(current: Row, body: Static<Replace>): Input;
    patched(current: Row, patch: unknown): Input;
    /** Writes at `current`'s version (the service answers stale → 412). */
    save(current: Row, input: Input, as: ActingAs): Promise<Row>;
  };
  remove?: {
    summary: string;
    /** Deletes at `current`'s version. */
    run(current: Row, as: ActingAs): Promise<void>;
  };
}

export interface ResourceRoutes<Row> {
  /** The row, or 404 in the resource's words. */
  find(id: string): Promise<Row>;
  /**
   * For actions where If-Match is optional: the row (found with `find`) when If-Match was sent and
   * matches it, undefined when none was sent; 412 when stale. The action then writes at that version.
   */
  pinned(request: FastifyRequest, id: string, find?: (id: string) => Promise<Row>): Promise<Row | undefined>;
}

/** What the routes need besides the declaration: the issuer (Location), the idempotency store, the cursor codec. */
export interface ResourceDeps {
  config: Pick<Config, 'ISSUER'>;
  idempotency: Idempotency;
  cursors: CursorCodec;
}

type Params = { Params: { id: string } };

export function versionedResource<
  Row,
  Item extends TSchema,
  Query extends TProperties = Record<never, never>,
  Create extends TSchema = TSchema,
  Replace extends TSchema = TSchema,
  Input = unknown,
>(app: FastifyInstance, core: ResourceDeps, resource: VersionedResource<Row, Item, Query, Create, Replace, Input>): ResourceRoutes<Row> {
  const { path, name, operation, schema } = resource;
  const tags = [resource.tag ?? `admin: ${path}`];
  const params = Type.Object({ id: resource.id ?? Type.String({ maxLength: 200 }) });
  const collection = `/${path}`;
  const member = `/${path}/:id`;
  const conflict = resource.conflicts ? [409] : [];
  const find = (id: string) => asProblems(name, () => resource.find(id));

  /** The target of a PUT/PATCH/DELETE: If-Match required and matching; the version it matched is the one written against. */
  async function writeTarget(request: FastifyRequest<Params>, reply: FastifyReply): Promise<Row> {
    requireIfMatch(request);
    const row = await find(request.params.id);
    checkPreconditions(request, reply, resource.validators(row));
    return row;
  }

  const { create } = resource;
  if (create) {
    app.post<{ Body: Static<Create> }>(collection, {
      schema: {
        tags,
        summary: create.summary,
        operationId: `adminCreate${operation}`,
        body: create.body,
        headers: idempotencyKeyHeader(true),
        response: { 201: create.response ?? schema, ...problemResponses(400, 401, 403, 406, 409, 413, 415, 422) },
      },
      preHandler: requireScope(ADMIN_WRITE),
      ...core.idempotency.route<{ Body: Static<Create> }>({ required: true }, async (request, tx) => {
        const { row, once } = await asProblems(name, () => create.run(request.body, tx, actingAs(request)));
        const body = resource.represent(row);
        const headers = {
          location: `${core.config.ISSUER}${app.prefix}/${path}/${encodeURIComponent(resource.idOf(row))}`,
          etag: resource.validators(row).etag,
        };
        return once === undefined ? { status: 201, headers, body } : { status: 201, headers, body: { ...(body as object), ...once }, replayBody: body };
      }),
    });
  }

  const { list } = resource;
  if (list) {
    const query = Type.Object(
      { limit: pageQueryProperties.limit, cursor: pageQueryProperties.cursor, ...(list.query as TProperties | undefined) },
      { additionalProperties: false },
    );
    const page = Type.Object({
      data: Type.Array(schema),
      pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }),
    });
    app.get<{ Querystring: PageQuery }>(collection, {
      schema: {
        tags,
        summary: list.summary,
        operationId: `adminList${operation}s`,
        querystring: query,
        response: { 200: page, ...problemResponses(400, 401, 403, 406, 422) },
      },
      preHandler: requireScope(ADMIN_READ),
      handler: async (request, reply) => {
        const filters = request.query as Static<TObject<Query>>; // the schema above validated them
        const scope = list.scope?.(filters) ?? `admin-${path}`;
        const pageRequest = parsePageQuery(request.query, { codec: core.cursors, scope });
        const after = pageRequest.style === 'cursor' ? pageRequest.after : undefined;
        const rows = await asProblems(name, () => list.rows(filters, { ...(after ? { after } : {}), limit: pageRequest.limit + 1 }));
        return sendPage(
          reply,
          pagedResponse(rows, pageRequest, {
            requestUrl: new URL(request.url, core.config.ISSUER),
            position: list.position,
            represent: resource.represent,
            cursors: { codec: core.cursors, scope },
          }),
        );
      },
    });
  }

  app.get<Params>(member, {
    schema: {
      tags,
      summary: resource.readSummary ?? `Read a ${name} (strong ETag)`,
      operationId: `adminGet${operation}`,
      params,
      response: { 200: schema, ...notModified, ...problemResponses(401, 403, 404, 406) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const row = await find(request.params.id);
      if (!checkPreconditions(request, reply, resource.validators(row))) return reply.send();
      setValidators(reply, resource.validators(row));
      return resource.represent(row);
    },
  });

  const { update } = resource;
  if (update) {
    const response = { 200: schema, ...problemResponses(400, 401, 403, 404, 406, ...conflict, 412, 413, 415, 422, 428) };
    const save = async (request: FastifyRequest, reply: FastifyReply, current: Row, input: Input) => {
      const updated = await asProblems(name, () => update.save(current, input, actingAs(request)));
      setValidators(reply, resource.validators(updated));
      return resource.represent(updated);
    };
    app.put<Params & { Body: Static<Replace> }>(member, {
      schema: { tags, summary: update.summaries.replace, operationId: `adminReplace${operation}`, params, body: update.body, response },
      preHandler: requireScope(ADMIN_WRITE),
      handler: async (request, reply) => {
        const current = await writeTarget(request, reply);
        return save(request, reply, current, update.replaced(current, request.body));
      },
    });
    app.patch<Params & { Body: unknown }>(member, {
      schema: {
        tags,
        summary: update.summaries.patch,
        operationId: `adminPatch${operation}`,
        params,
        body: { content: { [MERGE_PATCH]: { schema: Type.Object({}, { additionalProperties: true }) } } },
        response,
      },
      config: { bodyMediaTypes: [MERGE_PATCH] },
      preHandler: requireScope(ADMIN_WRITE),
      handler: async (request, reply) => {
        const current = await writeTarget(request, reply);
        return save(request, reply, current, update.patched(current, request.body));
      },
    });
  }

  const { remove } = resource;
  if (remove) {
    app.delete<Params>(member, {
      schema: {
        tags,
        summary: remove.summary,
        operationId: `adminDelete${operation}`,
        params,
        response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(401, 403, 404, ...conflict, 412, 428) },
      },
      preHandler: requireScope(ADMIN_WRITE),
      handler: async (request, reply) => {
        const current = await writeTarget(request, reply);
        await asProblems(name, () => remove.run(current, actingAs(request)));
        return reply.code(204).send(null);
      },
    });
  }

  return {
    find,
    async pinned(request, id, findRow = resource.find) {
      if (request.headers['if-match'] === undefined) return undefined;
      const row = await asProblems(name, () => findRow(id));
      if (evaluatePreconditions(request.method, request.headers, resource.validators(row)) === 'failed') {
        throw new ProblemError('precondition-failed', `The ${name} changed since it was read; read it again and retry with the new ETag.`);
      }
      return row;
    },
  };
}
