// RFC 9110 §13.2.2 precondition evaluation, as a pure function, one rule per test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluatePreconditions, parseEntityTags, strongEtag } from '../../src/http/conditional.js';

const etag = strongEtag('user', 'id-1', 3);
const lastModified = new Date('2026-03-01T10:00:00.750Z');
const current = { etag, lastModified };
const at = (iso: string) => new Date(iso).toUTCString();
const run = (method: string, headers: Record<string, string>, target: typeof current | 'missing' = current) =>
  evaluatePreconditions(method, headers, target === 'missing' ? undefined : target);

test('strong ETags are quoted, opaque and change with the version', () => {
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  assert.notEqual(strongEtag('user', 'id-1', 4), etag);
});

test('entity-tag lists parse weak and strong members and *', () => {
  assert.equal(parseEntityTags(' * '), '*');
  assert.deepEqual(parseEntityTags('W/"a", "b"'), [
    { weak: true, opaque: '"a"' },
    { weak: false, opaque: '"b"' },
  ]);
});

test('If-None-Match uses weak comparison and answers 304 for GET/HEAD, 412 for writes', () => {
  assert.equal(run('GET', { 'if-none-match': `W/${etag}` }), 'not-modified');
  assert.equal(run('HEAD', { 'if-none-match': etag }), 'not-modified');
  assert.equal(run('PUT', { 'if-none-match': etag }), 'failed');
  assert.equal(run('GET', { 'if-none-match': '"other"' }), 'proceed');
});

test('If-None-Match: * matches any existing representation and nothing when absent', () => {
  assert.equal(run('GET', { 'if-none-match': '*' }), 'not-modified');
  assert.equal(run('PUT', { 'if-none-match': '*' }, 'missing'), 'proceed');
});

test('If-Match uses strong comparison: a weak tag never matches', () => {
  assert.equal(run('PUT', { 'if-match': `W/${etag}` }), 'failed');
  assert.equal(run('PUT', { 'if-match': `"x", ${etag}` }), 'proceed');
});

test('If-Match: * passes on an existing representation and fails on none', () => {
  assert.equal(run('DELETE', { 'if-match': '*' }), 'proceed');
  assert.equal(run('DELETE', { 'if-match': '*' }, 'missing'), 'failed');
});

test('If-Unmodified-Since is evaluated at one-second granularity and ignored when If-Match is present', () => {
  assert.equal(run('PUT', { 'if-unmodified-since': at('2026-03-01T10:00:00Z') }), 'proceed');
  assert.equal(run('PUT', { 'if-unmodified-since': at('2026-03-01T09:59:59Z') }), 'failed');
  assert.equal(run('PUT', { 'if-match': etag, 'if-unmodified-since': at('2020-01-01T00:00:00Z') }), 'proceed');
});

test('If-Modified-Since is one-second granular, applies to GET/HEAD only, and is ignored when If-None-Match is present', () => {
  assert.equal(run('GET', { 'if-modified-since': at('2026-03-01T10:00:00Z') }), 'not-modified');
  assert.equal(run('GET', { 'if-modified-since': at('2026-03-01T09:59:59Z') }), 'proceed');
  assert.equal(run('PUT', { 'if-modified-since': at('2030-01-01T00:00:00Z') }), 'proceed');
  assert.equal(run('GET', { 'if-none-match': '"other"', 'if-modified-since': at('2030-01-01T00:00:00Z') }), 'proceed');
});

test('unparseable dates are ignored rather than treated as failures', () => {
  assert.equal(run('GET', { 'if-modified-since': 'not a date' }), 'proceed');
  assert.equal(run('PUT', { 'if-unmodified-since': 'not a date' }), 'proceed');
});
