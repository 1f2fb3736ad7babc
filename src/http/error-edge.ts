// The one place where errors become responses. Each route names its face in `config.face` (route-facts.ts):
//   problem — RFC 9457 application/problem+json (resource API and service endpoints, the default)
//   oauth   — RFC 6749 5.2 JSON {error, error_description} (/token, /revoke, /introspect, /register)
//   page    — an HTML page (authorize, login, consent, logout: where a redirect would be unsafe)
// Before routing (a malformed URL) and for a 405, the face is that of the routes the path belongs to; an
// unknown path is a 404 problem.
// Framework errors (parsing, size, media type, validation), an unreachable database and plain bugs
// are first classified into ProblemErrors; a bug never shows more than its trace_id.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { FastifyPluginAsync } from 'fastify';
import { ERROR_EDGE_PLUGIN } from '../face-dependencies.js';
import { OAuthError, PageError, ProblemError, safeDescription, type FieldError, type OAuthErrorCode } from './errors.js';
import { problemTypes } from './problem-types.js';
import { problemTitle } from './problem-titles.js';
import { renderErrorPage } from './error-page.js';
import { isDatabaseUnavailable } from '../storage/driver/unavailable.js';
import { isUnstorableText } from '../storage/errors.js';
import { logRefusedError } from './refusal-log.js';
import { validationFailed } from './validation.js';
import { routeFacts, type Face, type RouteFacts } from './route-facts.js';

export type { Face } from './route-facts.js';

const RETRY_AFTER_SECONDS = '5';

/** Turns anything thrown into one of the three error values. */
function classify(error: unknown, request: FastifyRequest): ProblemError | OAuthError | PageError {
  if (error instanceof ProblemError || error instanceof OAuthError || error instanceof PageError) return error;
  const fe = error as Partial<FastifyError> & {
    validation?: { keyword?: string; instancePath?: string; message?: string; params?: Record<string, unknown> }[];
  };
  if (fe?.validation) {
    const errors: FieldError[] = fe.validation.map((v) => ({
      field: fieldName(fe.validationContext, v.instancePath, v.params),
      message: v.message ?? 'is invalid',
    }));
    // A value outside a declared enum is a well-shaped request with a wrong value: 422, like the value rules
    // checked after the schema, while the schema still lists the accepted values for generated clients.
    if (fe.validationContext === 'body' && fe.validation.every((v) => v.keyword === 'enum')) return validationFailed(errors);
    return new ProblemError('bad-request', `The request ${fe.validationContext ?? 'body'} does not match the expected shape.`, { errors });
  }
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError('payload-too-large', 'The request body exceeds the size limit.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProblemError('unsupported-media-type', 'This Content-Type is not accepted here.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError('bad-request', 'The request body is empty but Content-Type says JSON.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ProblemError('bad-request', 'The request body is not valid JSON.');
  }
  if (error instanceof SyntaxError && fe?.statusCode === 400) {
    return new ProblemError('bad-request', 'The request body is not valid JSON.');
  }
  // A NUL character (or \u0000 in JSON) cannot be stored in PostgreSQL text/jsonb: the client's input is at
  // fault, not the server (src/storage/errors.ts).
  if (isUnstorableText(error)) {
    return new ProblemError('bad-request', 'The request contains a character that is not accepted (NUL).');
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error, trace_id: request.id }, 'database unavailable');
    return new ProblemError('service-unavailable', 'The database is temporarily unreachable.', {
      headers: { 'retry-after': RETRY_AFTER_SECONDS },
    });
  }
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500 && typeof fe.code === 'string' && fe.code.startsWith('FST_')) {
    const code =
      fe.statusCode === 404 ? 'not-found' : fe.statusCode === 413 ? 'payload-too-large' : fe.statusCode === 415 ? 'unsupported-media-type' : 'bad-request';
    return new ProblemError(code, problemTypes[code].title);
  }
  request.log.error({ err: error, trace_id: request.id }, 'unhandled error');
  return new ProblemError('internal-error', undefined);
}

function fieldName(context: string | undefined, instancePath: string | undefined, params: Record<string, unknown> | undefined): string {
  const path = (instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const missing = typeof params?.missingProperty === 'string' ? params.missingProperty : undefined;
  const name = [path, missing].filter(Boolean).join('.');
  return name || (context ?? 'body');
}

const OAUTH_FOR_STATUS: Record<number, OAuthErrorCode> = { 401: 'invalid_client', 429: 'slow_down', 503: 'temporarily_unavailable' };

function asOAuth(error: ProblemError | OAuthError | PageError): OAuthError {
  if (error instanceof OAuthError) return error;
  const status = error.status;
  const code: OAuthErrorCode = status >= 500 ? (status === 503 ? 'temporarily_unavailable' : 'server_error') : (OAUTH_FOR_STATUS[status] ?? 'invalid_request');
  const description = error instanceof ProblemError ? (error.detail ?? problemTypes[error.code].title) : error.detail;
  // RFC 6749 answers a wrong content type with 400 invalid_request, not 415.
  const keep = status === 405 || status === 413 || status === 429 || status >= 500;
  return new OAuthError(code, description, { status: keep ? status : code === 'invalid_client' ? 401 : 400, headers: error.headers });
}

function asProblem(error: ProblemError | OAuthError | PageError): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error instanceof OAuthError) {
    const code =
      error.status === 401 ? 'invalid-token' : error.status === 403 ? 'insufficient-scope' : error.status >= 500 ? 'service-unavailable' : 'bad-request';
    return new ProblemError(code, error.description, { status: error.status, headers: error.headers });
  }
  return new ProblemError(error.status === 404 ? 'not-found' : 'bad-request', error.detail, { status: error.status, headers: error.headers });
}

function sendError(face: Face, error: ProblemError | OAuthError | PageError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // A bug is already logged with its stack by classify(); every other answer here is a refusal.
  if (!(error instanceof ProblemError && error.code === 'internal-error')) logRefusedError(request, error);
  if (face === 'oauth') {
    const e = asOAuth(error);
    return reply
      .code(e.status)
      .headers({ ...e.headers, 'cache-control': 'no-store', pragma: 'no-cache' })
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ error: e.error, error_description: safeDescription(e.description) }));
  }
  if (face === 'page') {
    const status = error.status;
    const title = error instanceof PageError ? error.title : error instanceof ProblemError ? problemTypes[error.code].title : 'Request error';
    const detail = error instanceof PageError ? error.detail : error instanceof ProblemError ? (error.detail ?? title) : error.description;
    return reply
      .code(status)
      .headers({ ...error.headers, 'cache-control': 'no-store' })
      .type('text/html; charset=utf-8')
      .send(renderErrorPage({ brand: request.server.brand, title, detail, traceId: request.id, back: error instanceof PageError ? error.back : undefined }));
  }
  const p = asProblem(error);
  const issuer = request.server.issuer;
  const { title, language } = problemTitle(p.code, request.headers['accept-language']);
  const body: Record<string, unknown> = {
    type: `${issuer}/problems/${p.code}`,
    title,
    status: p.status,
    ...(p.detail !== undefined && p.code !== 'internal-error' ? { detail: p.detail } : {}),
    instance: request.url.split('?')[0],
    code: p.code,
    ...(p.errors ? { errors: p.errors } : {}),
    trace_id: request.id,
  };
  return reply
    .code(p.status)
    .headers({ ...p.headers, 'cache-control': 'no-store', 'content-language': language })
    .type('application/problem+json; charset=utf-8')
    .send(JSON.stringify(body));
}

const faceOf = (request: FastifyRequest): Face => request.routeOptions.config?.face ?? 'problem';

/** Installs the error handler and the 404/405 handler, learning each route's face as it is registered. */
function installErrorEdge(app: FastifyInstance, routes: RouteFacts): void {
  app.addHook('onRoute', (route) => routes.add(route));

  app.setErrorHandler((error, request, reply) => sendError(faceOf(request), classify(error, request), request, reply));

  app.setNotFoundHandler((request, reply) => {
    const matching = routes.matching(request.url.split('?')[0] ?? '/');
    if (matching) {
      const error = new ProblemError('method-not-allowed', `${request.method} is not supported here.`, { headers: { allow: matching.methods.join(', ') } });
      return sendError(matching.face, error, request, reply);
    }
    return sendError('problem', new ProblemError('not-found', 'No resource at this address.'), request, reply);
  });
}

export interface ErrorEdge {
  /**
   * Fastify's `frameworkErrors` option: a malformed percent-encoding (FST_ERR_BAD_URL) or an over-long path
   * parameter (FST_ERR_MAX_PARAM_LENGTH) is rejected by the router before any route is chosen; without this
   * it would bypass the edge and answer Fastify's own JSON. Its face is the face of the routes at that path.
   */
  frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** The edge as a named plugin: every face lists it as a dependency (src/face-dependencies.ts). Register it before any route. */
  plugin: FastifyPluginAsync;
}

/** One edge per app: its route table is the app's own. */
export function createErrorEdge(): ErrorEdge {
  const routes = routeFacts();
  return {
    frameworkErrors: (_error, request, reply) =>
      sendError(routes.faceOfPath(request.url), new ProblemError('bad-request', 'The request URL is malformed or too long.'), request, reply),
    plugin: fp(async (app) => installErrorEdge(app, routes), {
      name: ERROR_EDGE_PLUGIN,
      fastify: '5.x',
      // The problem documents and error pages read these (sendError).
      decorators: { fastify: ['issuer', 'brand'] },
    }),
  };
}
