// Invariants every answer must keep, whatever the input: no internals in a body, and the face's format.
import assert from 'node:assert/strict';

/** Stack frames, SQL, driver messages, file paths and internal hosts never reach a client (RFC 9457 §5). */
const LEAKS: RegExp[] = [
  /\bat [\w.<>]+ \(.*:\d+:\d+\)/, // stack frame
  /\n\s+at /,
  /node_modules|\/work\/|\/src\/|\.ts:\d+|file:\/\//,
  /\b(select|insert into|update|delete from)\b.+\b(from|set|values|where)\b/i,
  /syntax error at or near|violates (unique|foreign key|not-null|check) constraint|relation "[^"]+"|column "[^"]+"|invalid byte sequence/i,
  /PGlite|pg_catalog|ECONNREFUSED|TypeError|ReferenceError|RangeError|SyntaxError: /,
];

export function assertNoLeak(text: string, context = ''): void {
  for (const pattern of LEAKS) assert.doesNotMatch(text, pattern, `${context} leaks internals: ${text.slice(0, 300)}`);
}

export type Face = 'problem' | 'oauth' | 'page' | 'any';

/** Content type and shape of an error answer for the face that produced it. */
export function assertFace(face: Face, status: number, contentType: string, body: string, context = ''): void {
  if (status < 400) return;
  if (face === 'problem') {
    assert.match(contentType, /^application\/problem\+json/, `${context}: ${status} ${contentType}`);
    const parsed = JSON.parse(body) as { status: number; type: string; code: string };
    assert.equal(parsed.status, status, context);
    assert.equal(typeof parsed.code, 'string', context);
  } else if (face === 'oauth') {
    assert.match(contentType, /^application\/json/, `${context}: ${status} ${contentType}`);
    assert.equal(typeof (JSON.parse(body) as { error: string }).error, 'string', context);
  } else if (face === 'page') {
    assert.match(contentType, /^text\/html/, `${context}: ${status} ${contentType}`);
  }
}
