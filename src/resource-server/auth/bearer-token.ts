// Where the access token may travel (RFC 6750 §2): only the `Authorization` header, with the Bearer
// scheme, or the DPoP scheme for a DPoP-bound token (RFC 9449 §7.1). The query
// form (§2.3) leaks tokens into logs and Referer headers (RFC 9700 §4.3.2), so it is never accepted, and
// a token in two places at once is a malformed request (§2: "MUST NOT use more than one method").
import type { FastifyRequest } from 'fastify';
import { bearerError, missingToken } from './challenges.js';
import { authorizationCredentials, type PresentedToken } from '../../tokens/dpop/possession.js';

export type { PresentedToken };

// Bounded so a huge header costs nothing to reject.
const MAX_TOKEN_LENGTH = 8192;

/** The token and its scheme from the Authorization header; throws the RFC 6750 §3 error when absent or malformed. */
export function presentedToken(request: FastifyRequest): PresentedToken {
  refuseQueryToken(request);
  const credentials = authorizationCredentials(request.headers.authorization);
  if (credentials === 'absent') throw missingToken(queryTokenOnly(request));
  if (credentials === 'malformed' || credentials.token.length > MAX_TOKEN_LENGTH)
    throw bearerError('invalid_token', 'The access token is malformed.', 'malformed');
  return credentials;
}

function queryTokenOnly(request: FastifyRequest): boolean {
  return hasAccessTokenField(request.query);
}

function refuseQueryToken(request: FastifyRequest): void {
  if (request.headers.authorization !== undefined && hasAccessTokenField(request.query)) {
    throw bearerError('invalid_request', 'An access token may be sent in one place only: the Authorization header.', 'token_in_query');
  }
}

/** RFC 6750 §2.2: a form body carrying `access_token` next to the header is a second method. */
export function refuseBodyToken(request: FastifyRequest): void {
  if (request.headers.authorization !== undefined && hasAccessTokenField(request.body)) {
    throw bearerError('invalid_request', 'An access token may be sent in one place only: the Authorization header.', 'token_in_body');
  }
}

const hasAccessTokenField = (value: unknown): boolean => typeof value === 'object' && value !== null && Object.hasOwn(value, 'access_token');
