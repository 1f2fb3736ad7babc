// The Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header §2.1): an RFC 8941
// sf-string. A bare UUID is accepted too, since clients commonly send UUID v4 keys unquoted. Anything else
// (empty, over-long, control or non-ASCII characters, stray quotes, several headers) is refused.
import { ProblemError } from '../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// RFC 8941 §3.3.3: DQUOTE *( unescaped / "\" ( DQUOTE / "\" ) ) DQUOTE, unescaped = %x20-21 / %x23-5B / %x5D-7E
const SF_STRING = /^"((?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\["\\])*)"$/;
const MAX_KEY_LENGTH = 255;

/** The key's value, or undefined when the header is absent. Throws 400 `invalid-idempotency-key`. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) throw invalid('Send exactly one Idempotency-Key header.');
  const value = raw.trim();
  if (UUID.test(value)) return value.toLowerCase();
  const match = SF_STRING.exec(value);
  if (!match) throw invalid('The key must be a UUID or a quoted structured-field string.');
  const key = match[1]!.replace(/\\(["\\])/g, '$1');
  if (key.length < 1 || key.length > MAX_KEY_LENGTH) throw invalid(`The key must be 1 to ${MAX_KEY_LENGTH} characters long.`);
  return UUID.test(key) ? key.toLowerCase() : key;
}

export function requireIdempotencyKey(raw: string | string[] | undefined): string {
  const key = parseIdempotencyKey(raw);
  if (key === undefined) throw new ProblemError('missing-idempotency-key', 'This operation requires an Idempotency-Key header.');
  return key;
}

const invalid = (detail: string) => new ProblemError('invalid-idempotency-key', detail);
