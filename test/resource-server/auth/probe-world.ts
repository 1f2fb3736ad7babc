// The world of the forged-token tests (not a test file itself): an app whose resource routes under /probe
// trust a JWKS served by the test (startJwksServer), so each header and claim of a token can be chosen, and
// the requests and the 401 check those tests share.
import assert from 'node:assert/strict';
import type { JWK } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { installApiConventions } from '../../../src/resource-server/conventions.js';
import { requireScope, resourceServerAuth } from '../../../src/resource-server/auth/index.js';
import { claims, sign, startJwksServer, testIssuerKeys, type JwksServer, type TestIssuerKeys } from './forge.js';

export interface ProbeWorld {
  t: TestApp;
  jwks: JwksServer;
  keys: TestIssuerKeys;
  /** The keys the JWKS serves; a test may add one. */
  published: JWK[];
}

export async function startProbeWorld(): Promise<ProbeWorld> {
  const keys = await testIssuerKeys();
  const published = [keys.publicJwk, keys.rsa.publicJwk];
  const jwks = await startJwksServer(() => published);
  const t = await startTestApp({
    env: { JWKS_URL: jwks.url },
    configure(app) {
      const auth = resourceServerAuth(app.core, { jwksUrl: jwks.url });
      app.register(
        async (api) => {
          installApiConventions(api, auth);
          const whoami = async (request: { principal?: { sub: string; kind: string } }) => ({ sub: request.principal!.sub, kind: request.principal!.kind });
          api.get('/whoami', { preHandler: requireScope('users:read') }, whoami);
          api.post('/whoami', { preHandler: requireScope('users:read') }, whoami);
          api.get('/admin', { preHandler: requireScope('users:write', 'orders:read') }, whoami);
        },
        { prefix: '/probe' },
      );
    },
  });
  return { t, jwks, keys, published };
}

export async function closeProbeWorld(world: Pick<ProbeWorld, 't' | 'jwks'>): Promise<void> {
  await world.t.close();
  await world.jwks.close();
}

/** The requests of the tests, against the world `world()` returns once started. */
export function probeRequests(world: () => Pick<ProbeWorld, 't' | 'keys'>) {
  const good = (overrides: Record<string, unknown> = {}) => claims(world().t.config.ISSUER, world().t.config.API_AUDIENCE, overrides);
  return {
    good,
    es256: (payload = good(), header: Record<string, unknown> = {}) =>
      sign(payload, world().keys.privateKey, { alg: 'ES256', typ: 'at+jwt', kid: world().keys.kid, ...header }),
    async call(token: string | undefined, init: RequestInit & { path?: string } = {}) {
      const headers = new Headers(init.headers);
      if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
      return fetch(`${world().t.url}/probe${init.path ?? '/whoami'}`, { ...init, headers });
    },
    /** 401 with an RFC 6750 invalid_token challenge, a problem body, and nothing of the token echoed. */
    async assertInvalidToken(res: Response, token: string) {
      const text = await res.text();
      assert.equal(res.status, 401, text);
      const challenge = res.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer error="invalid_token"/);
      assert.doesNotMatch(challenge, /[\r\n]/);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      const body = JSON.parse(text) as { code: string };
      assert.equal(body.code, 'invalid-token');
      for (const part of token.split('.').filter((p) => p.length > 8)) {
        assert.ok(!text.includes(part) && !challenge.includes(part), 'token contents echoed');
      }
    },
  };
}
