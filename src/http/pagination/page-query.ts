// Paging parameters (docs/api-conventions.md): `limit` (default 20, 1–100) with either `offset` or
// `cursor`. Not an integer → 400; out of range → 422 VALIDATION_ERROR; both offset and cursor → 422;
// a cursor that is not ours for this listing → 400 invalid-cursor.
import { Type } from '@sinclair/typebox';
import { ProblemError } from '../errors.js';
import type { CursorCodec, CursorPosition } from './cursor.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const MAX_OFFSET = 1_000_000_000;

export interface PageQuery {
  limit?: string | undefined;
  offset?: string | undefined;
  cursor?: string | undefined;
}

export type PageRequest = { style: 'cursor'; limit: number; after?: CursorPosition } | { style: 'offset'; limit: number; offset: number };

/** JSON Schema of the paging query parameters, to merge into a route's querystring schema. */
export const pageQueryProperties = {
  limit: Type.Optional(Type.String({ description: `Page size, 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` })),
  offset: Type.Optional(Type.String({ description: 'Offset style: rows to skip. Not combinable with `cursor`.' })),
  cursor: Type.Optional(Type.String({ description: 'Cursor style: `pagination.next_cursor` of the previous page.' })),
};

export function parsePageQuery(query: PageQuery, cursors: { codec: CursorCodec; scope: string }): PageRequest {
  const limit = integerParam('limit', query.limit) ?? DEFAULT_LIMIT;
  const offset = integerParam('offset', query.offset);
  const errors = [
    ...(limit < 1 || limit > MAX_LIMIT ? [{ field: 'limit', message: `must be between 1 and ${MAX_LIMIT}` }] : []),
    ...(offset !== undefined && (offset < 0 || offset > MAX_OFFSET) ? [{ field: 'offset', message: `must be between 0 and ${MAX_OFFSET}` }] : []),
    ...(offset !== undefined && query.cursor !== undefined ? [{ field: 'cursor', message: 'cannot be combined with offset; use one paging style' }] : []),
  ];
  if (errors.length > 0) throw new ProblemError('VALIDATION_ERROR', 'The paging parameters are out of range.', { errors });
  if (offset !== undefined) return { style: 'offset', limit, offset };
  if (query.cursor === undefined) return { style: 'cursor', limit };
  return { style: 'cursor', limit, after: cursors.codec.decode(query.cursor, cursors.scope) };
}

function integerParam(field: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,15}$/.test(raw)) {
    throw new ProblemError('bad-request', `${field} must be an integer.`, { errors: [{ field, message: 'must be an integer' }] });
  }
  return Number(raw);
}
