// Route rules of the kit on their own: how a request path is normalised (or refused as ambiguous) and which
// requirement applies when upstreams may read a path leniently (docs/protect.md, "Route matching").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAmbiguous, normalisePath, parseRoute, requestTarget, routeRequirement, RouteSyntaxError } from '@gatehouse/resource-server';

const rules = (...sources: string[]) => sources.map(parseRoute);

test('normalised path: dot segments (also encoded) resolved, empty segments dropped, unreserved escapes decoded, other escapes upper-cased', () => {
  assert.equal(normalisePath('/a/./b/../c'), '/a/c');
  assert.equal(normalisePath('/a/%2e%2E/b'), '/b');
  assert.equal(normalisePath('/a//b///c/'), '/a/b/c/');
  assert.equal(normalisePath('/%61%7e/x%c3%a9'), '/a~/x%C3%A9');
  assert.equal(normalisePath('/../../a'), '/a');
  assert.equal(normalisePath('/a/..'), '/');
  assert.equal(normalisePath('/a/.'), '/a/');
});

test('request target: absolute-form and origin-form give the same path; the query is kept as received', () => {
  assert.deepEqual(requestTarget('/a/../b?x=%2F&y'), { path: '/b', search: '?x=%2F&y' });
  assert.deepEqual(requestTarget('http://host:8080/a/b?q'), { path: '/a/b', search: '?q' });
  assert.ok(isAmbiguous(requestTarget('*')));
  assert.ok(isAmbiguous(requestTarget('/a#frag')));
});

test('ambiguous paths are refused, each kind: encoded / and \\, backslash, ";", controls, invalid escapes, non-UTF-8', () => {
  for (const path of ['/a%2Fb', '/a%5cb', '/a\\b', '/a;b', '/a%3Bb', '/a%00', '/a%1f', '/a%7F', '/a%', '/a%g1', '/a%C0%AF', '/a%E2%82', '/a b', '/a\u00e9'])
    assert.ok(isAmbiguous(normalisePath(path)), path);
  assert.equal(normalisePath('/a%E2%82%AC'), '/a%E2%82%AC', 'a whole UTF-8 character is fine');
});

test('route paths are normalised like requests, and a rule no request could match is a syntax error', () => {
  assert.equal(parseRoute('GET /%61dmin/./x*=s').path, '/admin/x');
  assert.throws(() => parseRoute('GET /a;b=s'), RouteSyntaxError);
  assert.throws(() => parseRoute('GET /a%2Fb*=s'), RouteSyntaxError);
});

test('every reading applies: case-folded and trailing-slash readings add the requirement of the rule they find', () => {
  const set = rules('* /admin*=admin;acr=mfa', 'POST /notes=write', 'POST /notes/*=admin');
  assert.deepEqual(routeRequirement(set, 'GET', '/Admin/keys'), set[0]);
  assert.deepEqual(routeRequirement(rules('POST /notes=write'), 'POST', '/NOTES/').scopes, ['write']);
  // /notes/ is under the prefix /notes/ exactly, and is /notes to a lenient upstream: both. So is /notes, which a
  // lenient upstream may hand to what serves /notes/.
  assert.deepEqual(new Set(routeRequirement(set, 'POST', '/notes/').scopes), new Set(['write', 'admin']));
  assert.deepEqual(new Set(routeRequirement(set, 'POST', '/notes').scopes), new Set(['write', 'admin']));
  assert.deepEqual(routeRequirement(set, 'GET', '/other'), { scopes: [], acr: [] });
});

test('strictest wins: a longer rule found by a lenient reading adds to, never replaces, the exact reading’s rule', () => {
  const set = rules('GET /reports*=write', 'GET /Reports/public=');
  assert.deepEqual(routeRequirement(set, 'GET', '/reports/public').scopes, ['write']);
});

test('acr of several applying rules: only values every one accepts; none in common is a conflict nothing satisfies', () => {
  const common = rules('* /admin*=;acr=mfa hwk', '* /Admin*=;acr=hwk');
  assert.deepEqual(routeRequirement(common, 'GET', '/Admin/x').acr, ['hwk']);
  const disjoint = rules('* /admin*=;acr=mfa', '* /Admin*=;acr=hwk');
  assert.equal(routeRequirement(disjoint, 'GET', '/Admin/x').acrConflict, true);
});

test('escaped sub-delims, ":" and "@" decoded as upstreams decode them: POST /v1/notes%3Apurge meets the notes:purge rule, /users/%40me the /users/@me one', () => {
  assert.equal(normalisePath('/a%21%24%26%27%28%29%2A%2B%2C%3D%3A%40b'), "/a!$&'()*+,=:@b");
  assert.equal(normalisePath('/a%2a%2b%3a%40'), '/a*+:@', 'lower-case escapes too');
  const set = rules('POST /v1/notes*=notes:write', 'POST /v1/notes:purge=notes:admin', '* /users/@me=profile:admin');
  assert.ok(routeRequirement(set, 'POST', normalisePath('/v1/notes%3Apurge') as string).scopes.includes('notes:admin'));
  assert.deepEqual(routeRequirement(set, 'GET', normalisePath('/users/%40me') as string).scopes, ['profile:admin']);
  assert.equal(parseRoute('GET /users/%40me=s').path, '/users/@me', 'a rule written encoded means the same');
});

test('escapes that would change the request structure stay as they are: %2F %5C %3B refused, %3F %23 %25 kept encoded', () => {
  for (const path of ['/a%2Fb', '/a%5Cb', '/a%3Bb']) assert.ok(isAmbiguous(normalisePath(path)), path);
  assert.equal(normalisePath('/a%3fb%23c%25d'), '/a%3Fb%23c%25d');
});
