// Fuzz properties for the authorization server's endpoints: /authorize (GET and POST), /token, /userinfo,
// /revoke and /introspect. Requests start from a valid one and are mutated, so they reach deep steps.
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { basicAuth } from '../../oauth/fixtures.js';
import { REG, startWorld, tokensFor, type World } from '../helpers/world.js';
import {
  assertHealthy,
  checkAnswer,
  contentType,
  encodeForm,
  formOf,
  headerValue,
  hostileString,
  property,
  rawBody,
  rowCounts,
  runs,
  send,
  type Sent,
} from './harness.js';
import { pkcePair } from '../../helpers/pkce.js';

const AUTHORIZE = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'max_age',
  'request',
  'request_uri',
  'id_token_hint',
  'login_hint',
  'ui_locales',
  'response_mode',
  'resource',
  'claims',
  'acr_values',
  'display',
] as const;
const TOKEN = [
  'grant_type',
  'code',
  'redirect_uri',
  'code_verifier',
  'client_id',
  'client_secret',
  'refresh_token',
  'scope',
  'resource',
  'client_assertion',
  'client_assertion_type',
  'username',
  'password',
] as const;
const REVOKE = ['token', 'token_type_hint', 'client_id', 'client_secret'] as const;

export function oauthFuzzSuite(long: boolean): void {
  describe(`fuzz: OAuth endpoints${long ? ' (long)' : ''}`, () => {
    let w: World;
    let valid: Record<string, string>;
    let accessToken: string;
    let refreshToken: string;
    before(async () => {
      w = await startWorld();
      valid = {
        response_type: 'code',
        client_id: w.A.id,
        redirect_uri: REG,
        scope: 'openid profile',
        state: 's',
        nonce: 'n',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      };
      const t = await tokensFor(w, w.A);
      accessToken = t.access_token;
      refreshToken = t.refresh_token!;
    });
    after(async () => {
      await assertHealthy(w.t);
      await w.close();
    });

    /** The valid request with some parameters replaced, dropped or duplicated by hostile values. */
    const mutatedAuthorize = () =>
      fc.tuple(formOf(AUTHORIZE), fc.subarray([...AUTHORIZE]), fc.boolean()).map(([extra, dropped, duplicate]) => {
        const pairs: Array<[string, string]> = Object.entries(valid).filter(([k]) => !dropped.includes(k as (typeof AUTHORIZE)[number]));
        const merged = new Map(pairs);
        for (const [k, v] of extra) {
          if (duplicate) pairs.push([k, v]);
          else merged.set(k, v);
        }
        return duplicate ? pairs : [...merged];
      });

    test('GET /authorize with mutated parameters', async () => {
      await property(
        'authorize GET',
        mutatedAuthorize(),
        async (pairs) => {
          const request: Sent = { method: 'GET', path: `/authorize?${encodeForm(pairs)}` };
          const before = await rowCounts(w.t);
          await checkAnswer(w.t, request, await send(w.t, request), 'page', before);
        },
        runs(30, long),
      );
    });

    test('POST /authorize with mutated bodies and content types', async () => {
      await property(
        'authorize POST',
        fc.tuple(mutatedAuthorize(), contentType, fc.option(rawBody, { freq: 4 })),
        async ([pairs, type, raw]) => {
          const request: Sent = { method: 'POST', path: '/authorize', headers: type ? { 'content-type': type } : {}, body: raw ?? encodeForm(pairs) };
          await checkAnswer(w.t, request, await send(w.t, request), 'page', await rowCounts(w.t));
        },
        runs(20, long),
      );
    });

    test('POST /token with hostile forms, Authorization headers and content types', async () => {
      const auth = fc.option(
        fc.oneof(
          headerValue,
          fc.constant(basicAuth(w.A.id, w.A.secret)),
          fc.tuple(hostileString, hostileString).map(([u, p]) => basicAuth(u, p)),
        ),
        { freq: 3 },
      );
      const grants = fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'password', 'implicit', '');
      const form = fc
        .tuple(grants, formOf(TOKEN), fc.boolean())
        .map(([grant, pairs, withRefresh]) => [
          ['grant_type', grant] as [string, string],
          ...(withRefresh ? [['refresh_token', refreshToken] as [string, string]] : []),
          ...pairs,
        ]);
      await property(
        'token',
        fc.tuple(form, auth, fc.option(contentType, { freq: 3 }), fc.option(rawBody, { freq: 5 })),
        async ([pairs, authorization, type, raw]) => {
          const headers: Record<string, string> = { 'content-type': type ?? 'application/x-www-form-urlencoded' };
          if (authorization) headers.authorization = authorization;
          const request: Sent = { method: 'POST', path: '/token', headers, body: raw ?? encodeForm(pairs) };
          const before = await rowCounts(w.t);
          const answer = await send(w.t, request);
          await checkAnswer(w.t, request, answer, 'oauth', before);
        },
        runs(40, long),
      );
    });

    test('GET and POST /userinfo with hostile Authorization headers and bodies', async () => {
      const auth = fc.option(
        fc.oneof(
          headerValue,
          fc.constant(`Bearer ${accessToken}`),
          hostileString.map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, '')}`),
        ),
        { freq: 4 },
      );
      await property(
        'userinfo',
        fc.tuple(fc.constantFrom('GET', 'POST'), auth, fc.option(formOf(['access_token']), { freq: 2 }), fc.option(contentType, { freq: 2 })),
        async ([method, authorization, pairs, type]) => {
          const headers: Record<string, string> = {};
          if (authorization) headers.authorization = authorization;
          if (method === 'POST') headers['content-type'] = type ?? 'application/x-www-form-urlencoded';
          const request: Sent = { method, path: '/userinfo', headers, ...(method === 'POST' && pairs ? { body: encodeForm(pairs) } : {}) };
          await checkAnswer(w.t, request, await send(w.t, request), 'oauth');
        },
        runs(30, long),
      );
    });

    for (const path of ['/revoke', '/introspect']) {
      test(`POST ${path} with hostile tokens, hints and credentials`, async () => {
        const auth = fc.option(fc.oneof(fc.constant(basicAuth(w.C.id, w.C.secret)), headerValue), { freq: 4 });
        await property(
          path,
          fc.tuple(formOf(REVOKE), auth, fc.option(contentType, { freq: 4 })),
          async ([pairs, authorization, type]) => {
            const headers: Record<string, string> = { 'content-type': type ?? 'application/x-www-form-urlencoded' };
            if (authorization) headers.authorization = authorization;
            const request: Sent = { method: 'POST', path, headers, body: encodeForm(pairs) };
            const before = await rowCounts(w.t);
            const answer = await send(w.t, request);
            // A successful revocation of a random token changes nothing either; a rejected one must not.
            await checkAnswer(w.t, request, answer, 'oauth', before);
          },
          runs(25, long),
        );
      });
    }
  });
}
