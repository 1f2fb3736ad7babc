// What a resource server deployed apart from Gatehouse (`gatehouse protect`, or any API using
// @gatehouse/resource-server) needs to follow, authenticated with the credentials it got at
// `resource-servers create` (client_secret_basic, like /introspect) — docs/protect.md:
//
//   GET /resource-server/configuration  → its identifier, registered routes and scopes, the issuer and JWKS URL;
//   GET /resource-server/revocations[?since=CURSOR][&page=NEXT]
//        → {cursor, complete, tokens: [{jti, exp}], clients: [{client_id, covers_issued_until, exp}], next?}.
//
// Without `since` the answer is every live entry (complete: true on its last page); with it, the entries revoked
// at or after the cursor minus OVERLAP_MS. An answer holds at most PAGE_SIZE entries: when more remain it carries
// `next`, and the same request with `page=NEXT` continues (keyset paging; every page of one listing answers the
// cursor of its first page, so a catch-up from it covers what was revoked while the pages were read). The cursor is this server's clock when it read; the overlap covers a
// transaction that stamped its rows (revoked_at) before an earlier read and committed after it, and clocks
// of instances (or the CLI) a little apart. The list only grows until expiry, so the client keeps the union.
// Polled every 500 ms, it gives the proxy the feed's promise (≤ 1 s) from outside the database.
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../http/errors.js';
import type { LiveRevocations, RevocationsPosition } from '../../storage/repositories/revocations-repository.js';
import { authenticateClient } from '../client-auth/index.js';
import type { OAuthDeps } from '../deps.js';
import { JWKS_PATH } from '../jwks.js';
import { NO_STORE } from '../no-store.js';
import { INTROSPECTION_AUTH_METHODS } from '../revocable-token-types.js';
import { resourceServerIntrospection } from './introspection.js';

export const RESOURCE_SERVER_CONFIGURATION_PATH = '/resource-server/configuration';
export const RESOURCE_SERVER_REVOCATIONS_PATH = '/resource-server/revocations';
/** How far back before the cursor a catch-up reads (see above). */
export const OVERLAP_MS = 10_000;
/** Entries (tokens and clients) per answer. */
export const PAGE_SIZE = 1_000;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export function revocationsDocument(cursor: number, complete: boolean, live: LiveRevocations, next?: string): Record<string, unknown> {
  return {
    cursor: String(cursor),
    complete,
    tokens: live.tokens.map((t) => ({ jti: t.jti, exp: seconds(t.expiresAt) })),
    clients: live.clients.map((c) => ({ client_id: c.clientId, covers_issued_until: seconds(c.coversIssuedUntil), exp: seconds(c.expiresAt) })),
    ...(next !== undefined ? { next } : {}),
  };
}

/** A cursor this server handed out: a whole number of milliseconds, not in the future. */
function cursorOf(value: unknown, now: number, name: string): number {
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value) || Number(value) > now + OVERLAP_MS)
    throw new OAuthError('invalid_request', `${name} must be a cursor returned by this endpoint.`);
  return Number(value);
}

/** What a page token carries: the listing's cursor, its `since` (or none), where it resumes. */
interface PageToken {
  cursor: number;
  since: number | undefined;
  from: RevocationsPosition;
}

const encodePage = (page: PageToken): string =>
  Buffer.from(JSON.stringify([page.cursor, page.since ?? null, page.from.kind === 'token' ? 't' : 'c', page.from.after])).toString('base64url');

function decodePage(value: unknown, now: number): PageToken {
  const invalid = () => new OAuthError('invalid_request', 'page must be the `next` of an earlier answer of this endpoint.');
  if (typeof value !== 'string' || value.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(value)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalid();
  const [cursor, since, kind, after] = parsed as unknown[];
  if (typeof cursor !== 'number' || (since !== null && typeof since !== 'number') || (kind !== 't' && kind !== 'c') || typeof after !== 'string')
    throw invalid();
  // `after` is a jti or a client_id we wrote: never a control character (PostgreSQL text refuses U+0000, which
  // would be a 500) nor longer than any we issue.
  if (after.length > 255 || /[\u0000-\u001f\u007f]/.test(after)) throw invalid();
  return {
    cursor: cursorOf(String(cursor), now, 'page'),
    since: since === null ? undefined : cursorOf(String(since), now, 'page'),
    from: { kind: kind === 't' ? 'token' : 'client', after },
  };
}

export function resourceServerFeedEndpoints(
  app: FastifyInstance,
  services: Pick<OAuthDeps, 'config' | 'clientAuth' | 'resources' | 'revocations' | 'clock' | 'bearerTokens'>,
): void {
  const auth = { ...services.clientAuth, methods: INTROSPECTION_AUTH_METHODS };
  const lookup = resourceServerIntrospection({ resources: services.resources, verify: services.bearerTokens, issuer: services.config.ISSUER });

  /** The resource server whose credentials the request carries; any other client is unauthorized_client. */
  async function resourceServerOf(request: Parameters<typeof authenticateClient>[0]) {
    const client = await authenticateClient(request, {}, auth);
    const identifier = await lookup.audienceOf(client.id);
    const server = identifier === undefined ? undefined : (await services.resources.catalogue()).find(identifier);
    if (!server) throw new OAuthError('unauthorized_client', 'Only a resource server’s own credentials may read this.', { status: 403 });
    return server;
  }

  app.get(RESOURCE_SERVER_CONFIGURATION_PATH, { config: { face: 'oauth' } }, async (request, reply) => {
    reply.headers(NO_STORE);
    const server = await resourceServerOf(request);
    return reply.type('application/json; charset=utf-8').send(
      JSON.stringify({
        resource: server.identifier,
        issuer: services.config.ISSUER,
        jwks_uri: `${services.config.ISSUER}${JWKS_PATH}`,
        routes: server.routes ?? [],
        scopes_supported: server.scopes.map((s) => s.name),
        access_token_ttl: server.accessTokenTtl ?? services.config.ACCESS_TOKEN_TTL,
      }),
    );
  });

  app.get(RESOURCE_SERVER_REVOCATIONS_PATH, { config: { face: 'oauth' } }, async (request, reply) => {
    reply.headers(NO_STORE);
    await resourceServerOf(request);
    const now = services.clock.now();
    const query = request.query as Record<string, unknown>;
    // A continuation carries its listing's cursor and since; a first page starts them.
    const continued = query.page === undefined ? undefined : decodePage(query.page, now);
    const cursor = continued?.cursor ?? now;
    const since = continued ? continued.since : query.since === undefined ? undefined : cursorOf(query.since, now, 'since');
    const page = await services.revocations.page({
      since: since === undefined ? undefined : new Date(since - OVERLAP_MS),
      from: continued?.from,
      limit: PAGE_SIZE,
    });
    const next = page.next ? encodePage({ cursor, since, from: page.next }) : undefined;
    return reply
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(revocationsDocument(cursor, since === undefined && next === undefined, page, next)));
  });
}
