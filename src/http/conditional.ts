// Conditional requests (RFC 9110 §13): strong entity tags from a resource's identity and version,
// Last-Modified at one-second granularity, and the §13.2.2 evaluation order:
//   If-Match (strong comparison) → else If-Unmodified-Since → If-None-Match (weak comparison)
//   → else, for GET/HEAD only, If-Modified-Since (ignored when If-None-Match is present).
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from './errors.js';

export interface Validators {
  etag: string;
  lastModified: Date;
}

/** A strong, opaque tag that changes whenever the version changes (RFC 9110 §8.8.3). */
export function strongEtag(...parts: (string | number)[]): string {
  return `"${createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 27)}"`;
}

interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** `*`, or the list of entity tags; malformed members are dropped (they can match nothing). */
export function parseEntityTags(header: string): '*' | EntityTag[] {
  if (header.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  for (const m of header.matchAll(/(W\/)?("[\x21\x23-\x7E\x80-\xFF]*")/g)) tags.push({ weak: m[1] !== undefined, opaque: m[2]! });
  return tags;
}

const strongMatch = (tags: EntityTag[], etag: string) => tags.some((t) => !t.weak && t.opaque === etag && !etag.startsWith('W/'));
const weakMatch = (tags: EntityTag[], etag: string) => tags.some((t) => t.opaque === etag.replace(/^W\//, ''));

/** Seconds-precision time of an HTTP-date, or undefined when the header is not a valid date (then ignored). */
function httpDate(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed';

/** RFC 9110 §13.2.2 for the current representation, `undefined` when the resource does not exist. */
export function evaluatePreconditions(
  method: string,
  headers: Record<string, string | string[] | undefined>,
  current: Validators | undefined,
): PreconditionOutcome {
  const header = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  const safe = method === 'GET' || method === 'HEAD';
  const ifMatch = header('if-match');
  const ifUnmodifiedSince = httpDate(header('if-unmodified-since'));
  const ifNoneMatch = header('if-none-match');
  const ifModifiedSince = httpDate(header('if-modified-since'));

  if (ifMatch !== undefined) {
    const tags = parseEntityTags(ifMatch);
    if (!current || (tags !== '*' && !strongMatch(tags, current.etag))) return 'failed';
  } else if (ifUnmodifiedSince !== undefined && current && seconds(current.lastModified) > ifUnmodifiedSince) {
    return 'failed';
  }
  if (ifNoneMatch !== undefined) {
    const tags = parseEntityTags(ifNoneMatch);
    const matched = tags === '*' ? current !== undefined : current !== undefined && weakMatch(tags, current.etag);
    if (matched) return safe ? 'not-modified' : 'failed';
  } else if (safe && ifModifiedSince !== undefined && current && seconds(current.lastModified) <= ifModifiedSince) {
    return 'not-modified';
  }
  return 'proceed';
}

/** Sets ETag and Last-Modified (IMF-fixdate, whole seconds) on the response. */
export function setValidators(reply: FastifyReply, validators: Validators): void {
  reply.header('etag', validators.etag);
  reply.header('last-modified', new Date(seconds(validators.lastModified) * 1000).toUTCString());
}

/**
 * Evaluates the request's preconditions against `current`: throws 412 when they fail, answers 304 (with
 * the validators) when a safe request's cached copy is fresh, and returns true when the request may
 * proceed. Call it after object-level access has been decided, so hidden objects never reveal a tag.
 */
export function checkPreconditions(request: FastifyRequest, reply: FastifyReply, current: Validators | undefined): boolean {
  const outcome = evaluatePreconditions(request.method, request.headers, current);
  if (outcome === 'failed') throw new ProblemError('precondition-failed', 'The resource does not match the request preconditions.');
  if (outcome === 'not-modified') {
    if (current) setValidators(reply, current);
    reply.code(304);
    return false;
  }
  return true;
}

/**
 * RFC 6585 §3: a write that must not be a lost update requires `If-Match`; without it 428 (the client
 * reads first, then writes against the ETag it saw).
 */
export function requireIfMatch(request: FastifyRequest): void {
  if (request.headers['if-match'] === undefined) {
    throw new ProblemError('precondition-required', 'This operation requires If-Match with the ETag of the representation you read.');
  }
}
