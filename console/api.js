// @ts-check
// The admin API as the console calls it: the operator's bearer token, the API's conventions (If-Match on
// changes, Idempotency-Key on creates, cursor pages) and its Problem Details turned into sentences.
import { accessToken, signIn, tokenType } from './auth.js';
import { dpopProof, noteNonce, wantsNonce } from './dpop.js';

export const API = '/admin/v1';

/** An answer that was not 2xx, with the sentence to show. */
export class ApiError extends Error {
  /** @param {number} status @param {Record<string, any>} problem */
  constructor(status, problem) {
    super(describeProblem(status, problem));
    this.status = status;
    this.problem = problem;
    /** @type {{ field: string, message: string }[]} */
    this.fieldErrors = Array.isArray(problem.errors) ? problem.errors : [];
  }
}

/** What went wrong, in words, from an RFC 9457 problem (its detail, else its title, else the status). @param {number} status @param {Record<string, any>} problem */
export function describeProblem(status, problem) {
  if (status === 412) return 'This was changed by someone else since you opened it. Reload to see the current version, then make your change again.';
  if (status === 403) return 'Your access does not allow this (the API refused it).';
  if (status === 429) return 'Too many requests: wait a moment and try again.';
  const base =
    typeof problem.detail === 'string' && problem.detail
      ? problem.detail
      : typeof problem.title === 'string'
        ? problem.title
        : `The request failed (HTTP ${status}).`;
  const fields = Array.isArray(problem.errors) ? problem.errors.map((/** @type {{field: string, message: string}} */ e) => `${e.field}: ${e.message}`) : [];
  return fields.length ? `${base} ${fields.join('; ')}.` : base;
}

/**
 * One request. Returns the JSON body (null for 204) and the ETag; throws ApiError otherwise.
 * @param {string} path under /admin/v1
 * @param {{ method?: string, body?: unknown, etag?: string | null, idempotencyKey?: string, contentType?: string }} [options]
 * @returns {Promise<{ status: number, body: any, etag: string | null }>}
 */
export async function api(path, options = {}) {
  const method = options.method ?? 'GET';
  const url = new URL(`${API}${path}`, location.origin).href;
  const send = async () => {
    const token = accessToken();
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json', authorization: `${tokenType()} ${token}` };
    // A DPoP-bound token works only with a proof of its key for this very request (RFC 9449 §7).
    if (tokenType() === 'DPoP') headers.dpop = await dpopProof(method, url, token);
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    if (options.etag) headers['if-match'] = options.etag;
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const answer = await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    noteNonce(answer);
    return answer;
  };
  let response = await send();
  if (
    response.status === 401 &&
    tokenType() === 'DPoP' &&
    wantsNonce(
      response,
      await response
        .clone()
        .json()
        .catch(() => null),
    )
  ) {
    // The API wants proofs with its nonce (DPOP_NONCE_REQUIRED=all), which this answer carried: once more.
    response = await send();
  }
  if (response.status === 401) {
    // The token expired or was revoked (an operator's access changed): sign in again, back to this page.
    await signIn();
    throw new ApiError(401, { detail: 'Signing in again…' });
  }
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { detail: `The server answered HTTP ${response.status}.` };
  }
  if (!response.ok) throw new ApiError(response.status, body ?? {});
  return { status: response.status, body, etag: response.headers.get('etag') };
}

/** The item's current ETag, for a DELETE of something read from a list (lists carry no per-item ETag). @param {string} path */
export const etagOf = async (path) => (await api(path)).etag;

/** Every item of a list, following cursors, up to `max` items; `more` says whether the list went on. @param {string} path @param {number} max */
export async function walk(path, max) {
  /** @type {any[]} */
  const items = [];
  let next = `${path}${path.includes('?') ? '&' : '?'}limit=100`;
  for (;;) {
    const { body } = await api(next);
    items.push(...body.data);
    if (!body.pagination.has_more || items.length >= max) return { items, more: body.pagination.has_more };
    next = `${path}${path.includes('?') ? '&' : '?'}limit=100&cursor=${encodeURIComponent(body.pagination.next_cursor)}`;
  }
}
