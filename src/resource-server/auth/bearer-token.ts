// Where the access token may travel (RFC 6750 §2): the Authorization header only — the rule itself is the
// resource-server kit's (packages/resource-server-kit/src/resource-server.ts). What remains here is the part
// only a server that parses bodies can check: a form body carrying `access_token` next to the header is a
// second method (§2: "MUST NOT use more than one method").
import type { FastifyRequest } from 'fastify';
import { bearerError } from './challenges.js';

export type { PresentedToken } from '../../tokens/dpop/possession.js';

/** RFC 6750 §2.2: a form body carrying `access_token` next to the header is a second method. */
export function refuseBodyToken(request: FastifyRequest): void {
  if (request.headers.authorization !== undefined && hasAccessTokenField(request.body)) {
    throw bearerError('invalid_request', 'An access token may be sent in one place only: the Authorization header.', 'token_in_body');
  }
}

const hasAccessTokenField = (value: unknown): boolean => typeof value === 'object' && value !== null && Object.hasOwn(value, 'access_token');
