// Every refused request leaves one log line that says why: a stable reason code, the client_id when one is
// known, and what an operator needs to fix it (e.g. the presented vs the registered redirect_uri). The line
// carries the request's trace id — the Reference on error pages, X-Request-Id on every answer — so a user's
// report leads straight to it. Only identifiers go in, never secrets or tokens (the logger also redacts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OAuthError, type PageError, ProblemError, type RefusalDetails } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The client this request is on behalf of, once known (claimed or authenticated), for refusal logs. */
    clientId: string | undefined;
  }
}

export function installRefusalLog(app: FastifyInstance): void {
  app.decorateRequest('clientId', undefined);
}

const defaultReason = (error: ProblemError | OAuthError | PageError): string =>
  error instanceof OAuthError ? error.error : error instanceof ProblemError ? error.code.replace(/-/g, '_') : 'invalid_request';

/** Longest value logged from the request: enough to compare two URIs, not enough to flood the log. */
const MAX_LOGGED_LENGTH = 512;
const bounded = (value: RefusalDetails[string]): RefusalDetails[string] =>
  typeof value === 'string' ? value.slice(0, MAX_LOGGED_LENGTH) : Array.isArray(value) ? value.map((v: string) => v.slice(0, MAX_LOGGED_LENGTH)) : value;

export function logRefusal(request: FastifyRequest, details: RefusalDetails, status: number): void {
  const fields: Record<string, unknown> = { trace_id: request.id, status, path: request.routeOptions.url ?? request.url.split('?')[0] };
  for (const [name, value] of Object.entries(details)) if (value !== undefined) fields[name] = bounded(value);
  fields.client_id ??= request.clientId;
  request.log.info(fields, 'request refused');
}

/** The edge's call: the error's own details, or a reason derived from its code. */
export function logRefusedError(request: FastifyRequest, error: ProblemError | OAuthError | PageError): void {
  logRefusal(request, error.log ?? { reason: defaultReason(error) }, error.status);
}
