// CORS for single-page apps, on the few endpoints a browser app calls with fetch(): discovery and JWKS
// answer any origin (public documents, `*`), /token, /userinfo, /revoke and /introspect answer only the
// origins of registered clients. Everything else (/authorize, the login and consent pages, /v1, /demo)
// sends no CORS headers at all, so a page elsewhere cannot read it. No Access-Control-Allow-Credentials
// anywhere: tokens travel in headers and bodies, never in cookies, so a cross-origin call never rides on
// the user's session here.
//
// The origin check: a preflight names no client, so it is answered for any origin some enabled client
// may use (the in-memory index). The actual request is checked against the client it names (client_id in
// the form, or the Basic credentials) when it names one, so another client's origin cannot read that
// client's responses; /userinfo names no client and is checked against all of them. An origin that fails
// gets no CORS headers: the browser then withholds the answer from the page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../deps.js';

type CorsServices = Pick<OAuthDeps, 'clients' | 'corsOrigins'>;
import { JWKS_PATH } from '../jwks.js';
import { isBasic, parseBasic } from '../client-auth/basic.js';
import { clientOrigins, isSerializedOrigin } from './origins.js';

/** Paths any origin may read (path → methods a browser may use). */
const PUBLIC_PATHS = new Map([
  ['/.well-known/openid-configuration', 'GET'],
  ['/.well-known/oauth-authorization-server', 'GET'],
  [JWKS_PATH, 'GET'],
]);

/** Paths registered clients' origins may call. */
const CLIENT_PATHS = new Map([
  ['/token', 'POST'],
  ['/userinfo', 'GET, POST'],
  ['/revoke', 'POST'],
  ['/introspect', 'POST'],
]);

const ALLOW_HEADERS = 'Authorization, DPoP, Content-Type';
const EXPOSE_HEADERS = 'DPoP-Nonce, WWW-Authenticate';
/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours). */
const MAX_AGE_SECONDS = 600;

function originHeader(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  return typeof origin === 'string' && isSerializedOrigin(origin) ? origin : undefined;
}

/** The client a request names, if any; a malformed Basic header names none (the endpoint refuses it anyway). */
function namedClientId(request: FastifyRequest): string | undefined {
  const body = request.body;
  if (body && typeof body === 'object' && typeof (body as Record<string, unknown>).client_id === 'string') {
    return (body as Record<string, string>).client_id;
  }
  const authorization = request.headers.authorization;
  if (!isBasic(authorization)) return undefined;
  try {
    return parseBasic(authorization).clientId;
  } catch {
    return undefined;
  }
}

async function clientMayCall(core: CorsServices, request: FastifyRequest, origin: string): Promise<boolean> {
  const clientId = namedClientId(request);
  if (clientId === undefined) return core.corsOrigins.allows(origin);
  const client = await core.clients.find(clientId);
  return client !== undefined && clientOrigins(client).has(origin);
}

function allowOrigin(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
}

function varyOrigin(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  reply.header('vary', typeof vary === 'string' && vary !== '' ? `${vary}, Origin` : 'Origin');
}

export function corsEndpoints(app: FastifyInstance, core: CorsServices): void {
  for (const [path, methods] of PUBLIC_PATHS) {
    app.options(path, { config: { face: 'oauth' } }, async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-allow-methods', methods);
      reply.header('access-control-max-age', String(MAX_AGE_SECONDS));
      return reply.code(204).send();
    });
  }
  for (const [path, methods] of CLIENT_PATHS) {
    app.options(path, { config: { face: 'oauth' } }, async (request, reply) => {
      varyOrigin(reply);
      const origin = originHeader(request);
      if (origin !== undefined && (await core.corsOrigins.allows(origin))) {
        reply.header('access-control-allow-origin', origin);
        reply.header('access-control-allow-methods', methods);
        reply.header('access-control-allow-headers', ALLOW_HEADERS);
        reply.header('access-control-max-age', String(MAX_AGE_SECONDS));
      } else if (request.headers.origin !== undefined) {
        request.log.info({ path }, 'CORS preflight from an origin no client registered; answered without CORS headers');
      }
      return reply.code(204).send();
    });
  }

  // onSend sees every answer of these routes, errors included, so a SPA can read an OAuth error too.
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'OPTIONS') return payload;
    const path = request.routeOptions.url;
    if (path === undefined) return payload;
    if (PUBLIC_PATHS.has(path)) {
      if (request.headers.origin !== undefined) reply.header('access-control-allow-origin', '*');
      return payload;
    }
    if (!CLIENT_PATHS.has(path)) return payload;
    varyOrigin(reply);
    const origin = originHeader(request);
    if (origin !== undefined && (await clientMayCall(core, request, origin))) allowOrigin(reply, origin);
    return payload;
  });
}
