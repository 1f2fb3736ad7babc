// Microsoft's multi-tenant issuer (https://login.microsoftonline.com/{tenantid}/v2.0) is validated per
// tenant, never skipped: each id_token's iss must be the template with the token's own tid put in
// (src/federation/upstream-server.ts, docs/federation.md "Microsoft Entra").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectedIdTokenIssuer } from '../../src/federation/upstream-server.js';
import { MICROSOFT_MULTI_TENANT_ISSUER } from '../../src/federation/presets.js';

const A = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const B = '9188040d-6c67-4c5b-b112-36a304b66dad';
const multi = { issuer: MICROSOFT_MULTI_TENANT_ISSUER, tenants: [] as string[] };

test("Microsoft multi-tenant issuer: the expected iss is the template with the token's own tid", () => {
  assert.equal(expectedIdTokenIssuer(multi, { tid: A }), `https://login.microsoftonline.com/${A}/v2.0`);
  assert.equal(expectedIdTokenIssuer(multi, { tid: B }), `https://login.microsoftonline.com/${B}/v2.0`);
});

test('Microsoft multi-tenant issuer: a token without a GUID tid is refused (no issuer can be expected)', () => {
  assert.throws(() => expectedIdTokenIssuer(multi, {}), { code: 'upstream_invalid' });
  assert.throws(() => expectedIdTokenIssuer(multi, { tid: 'common' }), { code: 'upstream_invalid' });
  assert.throws(() => expectedIdTokenIssuer(multi, { tid: `${A}/v2.0/../x` }), { code: 'upstream_invalid' });
});

test('Microsoft multi-tenant issuer: with --tenant ids listed, other tenants are refused', () => {
  assert.throws(() => expectedIdTokenIssuer({ ...multi, tenants: [A, '00000000-0000-0000-0000-000000000001'] }, { tid: B }), { code: 'upstream_refused' });
  assert.equal(
    expectedIdTokenIssuer({ ...multi, tenants: [A, '00000000-0000-0000-0000-000000000001'] }, { tid: A }),
    `https://login.microsoftonline.com/${A}/v2.0`,
  );
});

test('a single-tenant or other issuer is compared as it is', () => {
  assert.equal(expectedIdTokenIssuer({ issuer: 'https://accounts.google.com', tenants: [] }, { tid: A }), 'https://accounts.google.com');
});
