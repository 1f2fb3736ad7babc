// Shared schemas for the OpenAPI document: the Problem Details body (RFC 9457 + our extensions) and
// the standard error responses every authenticated route can produce.
import { Type } from '@sinclair/typebox';

const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    instance: Type.Optional(Type.String()),
    code: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    trace_id: Type.String(),
  },
  { description: 'RFC 9457 Problem Details, served as application/problem+json' },
);

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema } } });

/** Error responses for the OpenAPI document only (error bodies are rendered by the error edge). */
export const problemResponses = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, problem(STATUS_TEXT[s] ?? 'Error')]));

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request or wrong JSON types',
  401: 'Missing or invalid access token',
  403: 'Insufficient scope or not allowed',
  404: 'Not found, or not visible to this caller',
  406: 'No acceptable representation',
  409: 'Conflict with the current state',
  412: 'Precondition failed',
  413: 'Request body too large',
  415: 'Unsupported request media type',
  422: 'Validation failed (VALIDATION_ERROR), or an idempotency key reused with another body',
  428: 'Precondition required',
  429: 'Rate limit exceeded (Retry-After)',
  503: 'Temporarily unavailable: overload or database unreachable (Retry-After)',
};

/** 304 of a conditional GET (If-None-Match / If-Modified-Since): no body. */
export const notModified = { 304: { description: 'Not modified: the representation named by If-None-Match is current', type: 'null' } } as const;
