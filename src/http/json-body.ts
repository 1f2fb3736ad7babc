// Request body media types for the JSON API (RFC 9110 §15.5.16): a POST, PUT or PATCH whose route takes a
// body must send it as application/json (PATCH: application/merge-patch+json, RFC 7396 §4); anything
// else, including no Content-Type at all, is 415. Routes without a body schema refuse any body that is
// not JSON, so a form-encoded body never reaches a handler.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from './errors.js';
import { jsonTextTooDeep, tooDeep } from './json-depth.js';

export const MERGE_PATCH = 'application/merge-patch+json';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Accepted request media types for this route; default `['application/json']`. */
    bodyMediaTypes?: readonly string[];
  }
}

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

const mediaTypeOf = (request: FastifyRequest) => request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();

const hasBody = (request: FastifyRequest) => request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? '0') > 0;

/** preValidation hook enforcing the route's request media types. */
export async function requireJsonBody(request: FastifyRequest): Promise<void> {
  if (!WITH_BODY.has(request.method)) return;
  const declared = request.routeOptions.schema?.body !== undefined;
  if (!declared && !hasBody(request)) return;
  const accepted = request.routeOptions.config?.bodyMediaTypes ?? ['application/json'];
  const type = mediaTypeOf(request);
  if (type === undefined || !accepted.includes(type)) {
    throw new ProblemError('unsupported-media-type', `Send the request body as ${accepted.join(' or ')}.`);
  }
}

type JsonParser = ReturnType<FastifyInstance['getDefaultJsonParser']>;

/** Fastify's own JSON parser (prototype-poisoning safe), after the nesting depth of the text was checked. */
function depthLimitedJsonParser(app: FastifyInstance): JsonParser {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    if (jsonTextTooDeep(String(body))) {
      request.log.info({ trace_id: request.id }, 'JSON body refused: nested too deeply');
      return done(tooDeep(), undefined);
    }
    return parse(request, body, done);
  };
}

/** Replaces the root's application/json parser; every JSON route (API, /register) inherits it. */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthLimitedJsonParser(app));
}

/** application/merge-patch+json parsed like application/json. */
export function acceptMergePatch(app: FastifyInstance): void {
  if (app.hasContentTypeParser(MERGE_PATCH)) return;
  app.addContentTypeParser(MERGE_PATCH, { parseAs: 'string' }, depthLimitedJsonParser(app));
}
