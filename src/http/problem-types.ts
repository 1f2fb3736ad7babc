// The catalogue of Problem Details types (RFC 9457). `type` = {ISSUER}/problems/{code}; the title is
// constant per type; GET /problems/{code} renders the description for humans. Add new codes here.
export interface ProblemType {
  readonly status: number;
  readonly title: string;
  readonly description: string;
}

export const problemTypes = {
  'bad-request': {
    status: 400,
    title: 'Bad request',
    description: 'The request could not be parsed: malformed syntax, a value of the wrong type, or a missing required part.',
  },
  'invalid-request': { status: 400, title: 'Invalid request', description: 'The request is malformed, for example a token sent in more than one place.' },
  'json-too-deep': {
    status: 400,
    title: 'JSON nested too deeply',
    description:
      'The JSON request body nests arrays and objects more than 32 levels deep. No request of this API needs more than a few levels; flatten the document.',
  },
  'invalid-cursor': {
    status: 400,
    title: 'Invalid cursor',
    description:
      'The pagination cursor is not one this service issued for this query (edited, truncated or from another listing). Start again from the first page.',
  },
  'missing-idempotency-key': {
    status: 400,
    title: 'Idempotency key required',
    description:
      'This operation requires an `Idempotency-Key` header: a unique value (UUID v4) per logical operation, reused only when retrying that same operation.',
  },
  'invalid-idempotency-key': {
    status: 400,
    title: 'Invalid idempotency key',
    description: 'The `Idempotency-Key` header must be a UUID or a structured-field string of 1 to 255 printable characters.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description: 'No valid access token was presented. Send `Authorization: Bearer <access token>` issued by this server for this API.',
  },
  'invalid-token': { status: 401, title: 'Invalid token', description: 'The access token is expired, revoked, malformed, or was not issued for this API.' },
  'invalid-dpop-proof': {
    status: 401,
    title: 'Invalid DPoP proof',
    description:
      'The access token is DPoP-bound (RFC 9449): send it as `Authorization: DPoP <token>` with a `DPoP` proof signed by the bound key, fresh, used once, naming this method and URL and carrying the token hash (`ath`).',
  },
  'use-dpop-nonce': {
    status: 401,
    title: 'DPoP nonce required',
    description:
      'The DPoP proof must carry the server-provided nonce (RFC 9449 §9): retry with a new proof whose `nonce` claim is the value of the `DPoP-Nonce` response header.',
  },
  'insufficient-scope': { status: 403, title: 'Insufficient scope', description: 'The access token is valid but lacks the scope this operation requires.' },
  forbidden: { status: 403, title: 'Forbidden', description: 'The caller is authenticated but not allowed to perform this operation.' },
  'not-found': { status: 404, title: 'Not found', description: 'No resource exists at this address, or it is not visible to the caller.' },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    description: 'The resource exists but does not support this HTTP method; see the `Allow` header.',
  },
  'not-acceptable': { status: 406, title: 'Not acceptable', description: 'None of the media types in the `Accept` header can be produced for this resource.' },
  conflict: { status: 409, title: 'Conflict', description: 'The request conflicts with the current state of the resource.' },
  'idempotency-key-in-use': {
    status: 409,
    title: 'Request with this idempotency key in progress',
    description: 'A request with the same `Idempotency-Key` is still being processed. Retry after the interval given in `Retry-After`.',
  },
  'order-state-conflict': {
    status: 409,
    title: 'Order state does not allow this action',
    description: 'The order is not in a state that allows this transition (only pending orders can be paid or cancelled).',
  },
  gone: { status: 410, title: 'Gone', description: 'This API version has passed its sunset date and is no longer served.' },
  'precondition-failed': {
    status: 412,
    title: 'Precondition failed',
    description: 'The resource changed since the representation identified by `If-Match` / `If-Unmodified-Since` was fetched.',
  },
  'precondition-required': { status: 428, title: 'Precondition required', description: 'This operation requires a conditional request.' },
  'payload-too-large': { status: 413, title: 'Payload too large', description: 'The request body exceeds the documented size limit.' },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'The request body must be sent with a supported `Content-Type` (usually `application/json`).',
  },
  VALIDATION_ERROR: {
    status: 422,
    title: 'Validation failed',
    description: 'The request was understood but some fields failed validation; see `errors` for each field.',
  },
  'idempotency-key-reuse': {
    status: 422,
    title: 'Idempotency key reused with a different request',
    description: 'This `Idempotency-Key` was already used for a request with a different body. Use a new key for a new operation.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description: 'The rate limit for this caller has been exceeded. Retry after the number of seconds in `Retry-After`.',
  },
  'internal-error': {
    status: 500,
    title: 'Internal server error',
    description: 'An unexpected error occurred. It has been logged under the `trace_id` of the response.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service unavailable',
    description: 'The service is temporarily unable to handle the request (overload or a dependency down). Retry after `Retry-After` seconds.',
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemCode = keyof typeof problemTypes;

export const isProblemCode = (code: string): code is ProblemCode => Object.hasOwn(problemTypes, code);
