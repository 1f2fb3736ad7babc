// The paged list response (docs/api-conventions.md): `data` + `pagination`, and RFC 8288 `Link`
// headers with absolute URLs — rel="next" while more rows exist, rel="prev" for offset pages past 0.
import type { FastifyReply } from 'fastify';
import type { CursorCodec, CursorPosition } from './cursor.js';
import type { PageRequest } from './page-query.js';

export interface Pagination {
  next_cursor: string | null;
  has_more: boolean;
  limit: number;
  offset?: number;
}

export interface Page<T> {
  body: { data: T[]; pagination: Pagination };
  /** Value for the `Link` header, absent when there is neither a next nor a previous page. */
  link?: string;
}

/**
 * `rows` must hold up to `limit + 1` rows in sort order: the extra row only tells whether more exist.
 * `requestUrl` is the absolute URL of this request; the links replace its paging parameters.
 */
export function pagedResponse<Row, T>(
  rows: Row[],
  request: PageRequest,
  options: { requestUrl: URL; position: (row: Row) => CursorPosition; represent: (row: Row) => T; cursors: { codec: CursorCodec; scope: string } },
): Page<T> {
  const hasMore = rows.length > request.limit;
  const pageRows = rows.slice(0, request.limit);
  const last = pageRows.at(-1);
  const links: string[] = [];
  let nextCursor: string | null = null;
  if (request.style === 'cursor') {
    if (hasMore && last) {
      nextCursor = options.cursors.codec.encode(options.position(last), options.cursors.scope);
      links.push(linkTo(options.requestUrl, { cursor: nextCursor, limit: request.limit }, 'next'));
    }
  } else {
    if (hasMore) links.push(linkTo(options.requestUrl, { offset: request.offset + request.limit, limit: request.limit }, 'next'));
    if (request.offset > 0) links.push(linkTo(options.requestUrl, { offset: Math.max(0, request.offset - request.limit), limit: request.limit }, 'prev'));
  }
  const pagination: Pagination = {
    next_cursor: nextCursor,
    has_more: hasMore,
    limit: request.limit,
    ...(request.style === 'offset' ? { offset: request.offset } : {}),
  };
  return { body: { data: pageRows.map(options.represent), pagination }, ...(links.length > 0 ? { link: links.join(', ') } : {}) };
}

function linkTo(base: URL, params: { cursor?: string; offset?: number; limit: number }, rel: 'next' | 'prev'): string {
  const url = new URL(base);
  for (const name of ['cursor', 'offset', 'limit']) url.searchParams.delete(name);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, String(value));
  return `<${url.href}>; rel="${rel}"`;
}

/** Answers with a page: its `Link: rel="next"` header (RFC 8288) when there is one, and its body. */
export function sendPage<T>(reply: FastifyReply, page: Page<T>): Page<T>['body'] {
  if (page.link) reply.header('link', page.link);
  return page.body;
}
