// offlineAudienceMayRefuse decides whether a refresh reads its grant before rotating (so that a refused audience
// does not spend the token): it may say "cannot refuse" only when chooseAudience cannot refuse any grant of the client.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseAudience, offlineAudienceMayRefuse } from '../../../src/oauth/resources/audience.js';
import { resourceCatalogue } from '../../../src/oauth/resources/registry.js';
import type { ResourceServer } from '../../../src/storage/repositories/resource-servers-repository.js';

const server = (identifier: string, scopes: string[], offlineAccess = true, operatorOnly = false) =>
  ({
    identifier,
    name: identifier,
    offlineAccess,
    operatorOnly,
    accessTokenTtl: null,
    scopes: scopes.map((name) => ({ name, description: name })),
  }) as unknown as ResourceServer;

const api = server('https://api.example', ['orders:read', 'users:read']);
const notes = server('https://notes.example', ['notes:read']);
const files = server('https://files.example', ['files:read'], false);
// Like the built-in administration API: no offline access, never bound at /authorize, its scopes never in a user grant.
const admin = server('https://as.example/admin/v1', ['admin:read'], false, true);

test('a refresh reads its grant before rotating unless no grant of the client can be refused an audience', () => {
  const one = resourceCatalogue([api, notes, admin]);
  assert.equal(offlineAudienceMayRefuse(one, ['openid', 'offline_access', 'orders:read', 'users:read']), false);
  assert.equal(offlineAudienceMayRefuse(one, ['openid', 'offline_access']), false);
  // Two owners: a grant spanning both is ambiguous without `resource`.
  assert.equal(offlineAudienceMayRefuse(one, ['offline_access', 'orders:read', 'notes:read']), true);
  // A server without offline access: a grant bound to it (any client's), or holding its scopes, is refused.
  assert.equal(offlineAudienceMayRefuse(resourceCatalogue([api, files]), ['offline_access', 'orders:read']), true);
  // A client that also holds operator-only scopes (client_credentials) is read first: conservative.
  assert.equal(offlineAudienceMayRefuse(one, ['offline_access', 'orders:read', 'admin:read']), true);
});

test('when offlineAudienceMayRefuse says a refusal is impossible, chooseAudience accepts every scope subset and binding', () => {
  const catalogue = resourceCatalogue([api, notes, admin]);
  const clientScopes = ['openid', 'offline_access', 'orders:read', 'users:read', 'unknown:scope'];
  assert.equal(offlineAudienceMayRefuse(catalogue, clientScopes), false);
  const subsets = Array.from({ length: 2 ** clientScopes.length }, (_, bits) => clientScopes.filter((_, i) => bits & (1 << i)));
  for (const scope of subsets) {
    for (const bound of [null, api.identifier, notes.identifier, 'https://gone.example']) {
      for (const defaultResource of [null, notes.identifier]) {
        assert.doesNotThrow(() =>
          chooseAudience({ catalogue, scope, requested: undefined, bound, defaultResource, fallbackAudience: 'https://as.example/v1', offline: true }),
        );
      }
    }
  }
});
