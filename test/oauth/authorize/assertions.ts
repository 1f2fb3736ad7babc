// Shared assertions for /authorize answers (not a test file).
import assert from 'node:assert/strict';

/** RFC 6749 4.1.2.1: error_description uses only %x20-21 / %x23-5B / %x5D-7E. */
export const SAFE_DESCRIPTION = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

export async function assertErrorPage(response: Response): Promise<string> {
  assert.equal(response.status, 400, `expected the 400 error page, got ${response.status} ${response.headers.get('location') ?? ''}`);
  assert.equal(response.headers.get('location'), null);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  return response.text();
}

export function assertErrorRedirect(response: Response, expected: { error: string; redirectUri: string; state?: string | null; issuer: string }): URL {
  assert.equal(response.status, 303, `expected a 303 redirect, got ${response.status}`);
  const location = response.headers.get('location') ?? '';
  assert.ok(location.startsWith(expected.redirectUri), `redirect ${location} should start with ${expected.redirectUri}`);
  const url = new URL(location);
  assert.equal(url.searchParams.get('error'), expected.error, `error in ${location}`);
  if (expected.state !== undefined) assert.equal(url.searchParams.get('state'), expected.state);
  assert.equal(url.searchParams.get('iss'), expected.issuer);
  assert.equal(url.searchParams.get('code'), null);
  assert.match(url.searchParams.get('error_description') ?? '', SAFE_DESCRIPTION);
  const allowed = new Set(['error', 'error_description', 'error_uri', 'state', 'iss']);
  const extra = [...url.searchParams.keys()].filter((k) => !allowed.has(k) && !new URL(expected.redirectUri).searchParams.has(k));
  assert.deepEqual(extra, []);
  return url;
}
