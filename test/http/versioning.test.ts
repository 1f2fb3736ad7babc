import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deprecationHeaders } from '../../src/http/versioning.js';

test('Deprecation is an RFC 9745 structured-field Date (@ + unix seconds), not an HTTP-date', () => {
  const h = deprecationHeaders({ version: 'v0', deprecatedAt: new Date('2026-01-01T00:00:00Z') }, 'https://as.example/docs');
  assert.equal(h.deprecation, '@1767225600');
  assert.equal(h.sunset, undefined);
  assert.equal(h.link, '<https://as.example/docs>; rel="deprecation"; type="text/html"');
});

test('Sunset is an RFC 8594 IMF-fixdate and adds a rel="sunset" link', () => {
  const h = deprecationHeaders(
    { version: 'v0', deprecatedAt: new Date('2026-01-01T00:00:00Z'), sunsetAt: new Date('2027-01-01T12:30:00Z') },
    'https://as.example/docs',
  );
  assert.equal(h.sunset, 'Fri, 01 Jan 2027 12:30:00 GMT');
  assert.match(h.link!, /rel="sunset"/);
});
