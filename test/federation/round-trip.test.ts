// The upstream round trip (src/federation/) against a REAL upstream started here: node-oidc-provider as the
// OpenID provider (discovery, authorization with PKCE, token endpoint, id_token, userinfo) and a
// GitHub-shaped user API for the plain OAuth 2.0 kind. Each rule of the round trip is a test named after it
// (docs/federation.md); nothing is mocked: the requests cross real sockets through the outbound policy.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { manualClock, systemClock } from '../../src/clock.js';
import { STRICT_OUTBOUND, type OutboundPolicy } from '../../src/http/outbound/outbound-policy.js';
import { remoteKeySets } from '../../src/oauth/client-auth/remote-key-sets.js';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { beginUpstreamSignIn, PENDING_UPSTREAM_TTL_MS } from '../../src/federation/authorization-request.js';
import { completeUpstreamSignIn, type FederationDeps, type UpstreamResult } from '../../src/federation/callback.js';
import { discoverProvider } from '../../src/federation/discovery.js';
import { federationRedirectUri } from '../../src/federation/callback-uri.js';
import { DEFAULT_UPSTREAM_LIMITS } from '../../src/federation/upstream-fetch.js';
import { startOidcUpstream, upstreamProviderSettings, type OidcUpstream } from '../helpers/oidc-upstream.js';

const ISSUER = 'https://gatehouse.test';
const SECRET_ENV = 'FEDERATION_TEST_UPSTREAM_SECRET';
const LOOPBACK: OutboundPolicy = { ...STRICT_OUTBOUND, allowedClasses: ['loopback'], allowHttp: true };

let upstream: OidcUpstream;
let oidc: IdentityProvider;
let github: IdentityProvider;
let silent: Server;
let otherKeys: Server;
let otherKeysUrl: string;
let silentUrl: string;

const deps = (over: Partial<FederationDeps> = {}): FederationDeps => ({
  clock: systemClock,
  outbound: LOOPBACK,
  keySets: remoteKeySets({ CLIENT_JWKS_FETCH_TIMEOUT: 2_000, CLIENT_JWKS_MAX_BYTES: 64 * 1024, CLIENT_JWKS_CACHE_SIZE: 10 }, LOOPBACK),
  env: { [SECRET_ENV]: upstream.clientSecret },
  limits: { timeoutMs: 2_000, maxBytes: 256 * 1024 },
  ...over,
});

function record(over: Partial<IdentityProvider>): IdentityProvider {
  return {
    id: 'p-oidc',
    slug: 'upstream',
    name: 'Upstream',
    kind: 'oidc',
    preset: null,
    issuer: null,
    authorizationEndpoint: '',
    tokenEndpoint: '',
    userinfoEndpoint: null,
    emailsEndpoint: null,
    jwksUri: null,
    authorizationResponseIss: false,
    ...upstreamProviderSettings(upstream, SECRET_ENV),
    tokenEndpointAuthMethod: 'client_secret_basic',
    trustMfa: false,
    storeTokens: false,
    enabled: true,
    version: 1,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...over,
  };
}

before(async () => {
  upstream = await startOidcUpstream({
    redirectUris: [federationRedirectUri(ISSUER, 'upstream'), federationRedirectUri(ISSUER, 'github-like'), federationRedirectUri(ISSUER, 'other')],
  });
  const discovered = await discoverProvider(upstream.issuer, { outbound: LOOPBACK, limits: DEFAULT_UPSTREAM_LIMITS });
  oidc = record({ ...discovered });
  github = record({
    id: 'p-github',
    slug: 'github-like',
    kind: 'oauth2',
    // The authorization and token endpoints are the OpenID provider's; the user API is GitHub's shape.
    issuer: upstream.issuer,
    authorizationEndpoint: discovered.authorizationEndpoint,
    tokenEndpoint: discovered.tokenEndpoint,
    userinfoEndpoint: `${upstream.issuer}/gh/user`,
    emailsEndpoint: `${upstream.issuer}/gh/user/emails`,
    scopes: ['openid'],
    claims: { sub: 'id', preferred_username: 'login', name: 'name' },
  });
  // An upstream that accepts connections and never answers.
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  // A key set that did not sign the upstream's id_tokens (same kid, another key).
  const upstreamKeys = (await (await fetch(`${upstream.issuer}/jwks`)).json()) as { keys: { kid: string }[] };
  const { publicKey } = await generateKeyPair('RS256', { extractable: true });
  const impostor = { ...(await exportJWK(publicKey)), kid: upstreamKeys.keys[0]!.kid, alg: 'RS256', use: 'sig' };
  otherKeys = createServer((_req, res) => res.end(JSON.stringify({ keys: [impostor] })));
  await new Promise<void>((resolve) => otherKeys.listen(0, '127.0.0.1', resolve));
  otherKeysUrl = `http://127.0.0.1:${(otherKeys.address() as AddressInfo).port}/jwks`;
});

after(async () => {
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
  await new Promise((resolve) => otherKeys.close(resolve));
  await upstream.close();
});

/** Our authorization request, the upstream's login, and the callback parameters the browser brings back. */
async function roundTrip(provider: IdentityProvider) {
  const request = await beginUpstreamSignIn(provider, { issuer: ISSUER, clock: systemClock }, { loginHint: 'ada@example.com' });
  const callback = await upstream.follow(request.url);
  return { request, callback, params: new URLSearchParams(callback.search) };
}

const failed = (result: UpstreamResult) => (result.ok ? 'ok' : result.error.code);

test("federation discovery: endpoints come from the issuer's discovery document, whose issuer must be the one asked for", async () => {
  assert.equal(oidc.issuer, upstream.issuer);
  assert.equal(oidc.tokenEndpoint, `${upstream.issuer}/token`);
  assert.equal(oidc.authorizationResponseIss, true, 'node-oidc-provider promises iss in authorization responses (RFC 9207)');
  await assert.rejects(
    discoverProvider(`${upstream.issuer}/`, { outbound: LOOPBACK, limits: DEFAULT_UPSTREAM_LIMITS }),
    (e: Error & { code?: string }) => e.code === 'upstream_invalid' && /must be equal/.test(e.message),
  );
});

test('federation upstream calls follow the outbound policy: a loopback upstream is refused by the strict policy', async () => {
  await assert.rejects(
    discoverProvider(upstream.issuer, { outbound: STRICT_OUTBOUND, limits: DEFAULT_UPSTREAM_LIMITS }),
    (e: Error & { code?: string }) => e.code === 'upstream_unreachable',
  );
  const { request, params } = await roundTrip(oidc);
  const result = await completeUpstreamSignIn(oidc, request.pending, params, deps({ outbound: { ...STRICT_OUTBOUND, allowHttp: true } }));
  assert.equal(failed(result), 'upstream_unreachable');
});

test("federation authorization request: state, nonce, PKCE S256 and the provider's own callback", async () => {
  const { request } = await beginUpstreamSignIn(oidc, { issuer: ISSUER, clock: systemClock }).then((r) => ({ request: r }));
  const url = new URL(request.url);
  assert.equal(url.searchParams.get('redirect_uri'), `${ISSUER}/federation/upstream/callback`);
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(url.searchParams.get('state'), request.pending.state);
  assert.equal(url.searchParams.get('nonce'), request.pending.nonce);
  assert.ok(request.pending.codeVerifier.length >= 43);
  const other = await beginUpstreamSignIn(oidc, { issuer: ISSUER, clock: systemClock });
  assert.notEqual(other.pending.state, request.pending.state);
  assert.notEqual(other.pending.nonce, request.pending.nonce);
});

test("federation OIDC round trip: the id_token is validated and the identity has the upstream's subject and verified e-mail (from userinfo)", async () => {
  upstream.next = { sub: 'ada-upstream', email: 'Ada@Example.com', email_verified: true, name: 'Ada Lovelace' };
  const { request, params } = await roundTrip(oidc);
  assert.equal(params.get('iss'), upstream.issuer);
  const result = await completeUpstreamSignIn(oidc, request.pending, params, deps());
  assert.ok(result.ok, JSON.stringify(result));
  assert.deepEqual(
    {
      provider: result.identity.provider,
      subject: result.identity.subject,
      email: result.identity.email,
      emailVerified: result.identity.emailVerified,
      name: result.identity.name,
    },
    { provider: { id: 'p-oidc', slug: 'upstream' }, subject: 'ada-upstream', email: 'ada@example.com', emailVerified: true, name: 'Ada Lovelace' },
  );
});

test('federation: an e-mail the upstream does not assert as verified is unverified', async () => {
  upstream.next = { sub: 'bob-upstream', email: 'bob@example.com', email_verified: false };
  const { request, params } = await roundTrip(oidc);
  const result = await completeUpstreamSignIn(oidc, request.pending, params, deps());
  assert.ok(result.ok);
  assert.equal(result.identity.emailVerified, false);
});

test("federation state check: a callback whose state is not this browser's is refused", async () => {
  upstream.next = { sub: 'ada-upstream', email: 'ada@example.com', email_verified: true };
  const { request, params } = await roundTrip(oidc);
  const tampered = new URLSearchParams(params);
  tampered.set('state', `${request.pending.state}x`);
  assert.equal(failed(await completeUpstreamSignIn(oidc, request.pending, tampered, deps())), 'state_mismatch');
  tampered.delete('state');
  assert.equal(failed(await completeUpstreamSignIn(oidc, request.pending, tampered, deps())), 'state_mismatch');
  // Another browser's pending request (its own state) does not accept this browser's response either.
  const otherBrowser = await beginUpstreamSignIn(oidc, { issuer: ISSUER, clock: systemClock });
  assert.equal(failed(await completeUpstreamSignIn(oidc, otherBrowser.pending, params, deps())), 'state_mismatch');
});

test('federation iss check (RFC 9207): an authorization response naming another issuer, or omitting the promised one, is refused', async () => {
  upstream.next = { sub: 'ada-upstream', email: 'ada@example.com', email_verified: true };
  const { request, params } = await roundTrip(oidc);
  const forged = new URLSearchParams(params);
  forged.set('iss', 'https://attacker.example');
  assert.equal(failed(await completeUpstreamSignIn(oidc, request.pending, forged, deps())), 'issuer_mismatch');
  forged.delete('iss');
  assert.equal(failed(await completeUpstreamSignIn(oidc, request.pending, forged, deps())), 'issuer_mismatch');
  // The untouched response still works: the refusals consumed nothing.
  assert.ok((await completeUpstreamSignIn(oidc, request.pending, params, deps())).ok);
});

test("federation nonce check: an id_token whose nonce is not this request's is refused", async () => {
  upstream.next = { sub: 'ada-upstream', email: 'ada@example.com', email_verified: true };
  const { request, params } = await roundTrip(oidc);
  const result = await completeUpstreamSignIn(oidc, { ...request.pending, nonce: 'another-requests-nonce' }, params, deps());
  assert.equal(failed(result), 'nonce_mismatch');
});

test("federation id_token signature: an id_token that does not verify with the provider's jwks_uri is refused", async () => {
  upstream.next = { sub: 'ada-upstream', email: 'ada@example.com', email_verified: true };
  const { request, params } = await roundTrip(oidc);
  const result = await completeUpstreamSignIn({ ...oidc, jwksUri: otherKeysUrl }, request.pending, params, deps());
  assert.equal(failed(result), 'upstream_invalid');
  assert.ok(!result.ok && /signature/.test(result.error.detail));
});

test("federation per-provider callback: a response for one provider's request is refused at another provider's callback (mix-up)", async () => {
  upstream.next = { sub: 'ada-upstream', email: 'ada@example.com', email_verified: true };
  const { request, params } = await roundTrip(oidc);
  const other = record({ ...oidc, id: 'p-other', slug: 'other' });
  assert.equal(failed(await completeUpstreamSignIn(other, request.pending, params, deps())), 'provider_mismatch');
});

test("federation PKCE: the code is redeemed only with this request's verifier", async () => {
  upstream.next = { sub: 'ada-upstream', email: 'ada@example.com', email_verified: true };
  const { request, params } = await roundTrip(oidc);
  const result = await completeUpstreamSignIn(oidc, { ...request.pending, codeVerifier: 'x'.repeat(43) }, params, deps());
  assert.ok(!result.ok);
  assert.equal(result.error.code, 'upstream_invalid');
  assert.equal(result.error.upstreamError, 'invalid_grant');
});

test('federation pending request lifetime: a callback after it is refused', async () => {
  upstream.next = { sub: 'ada-upstream', email: 'ada@example.com', email_verified: true };
  const { request, params } = await roundTrip(oidc);
  const clock = manualClock(request.pending.createdAt + PENDING_UPSTREAM_TTL_MS + 1);
  assert.equal(failed(await completeUpstreamSignIn(oidc, request.pending, params, deps({ clock }))), 'expired');
});

test('federation upstream error: a refusal at the upstream is a typed error carrying its error code', async () => {
  upstream.next = 'deny';
  const { request, params } = await roundTrip(oidc);
  assert.equal(params.get('error'), 'access_denied');
  const result = await completeUpstreamSignIn(oidc, request.pending, params, deps());
  assert.ok(!result.ok);
  assert.deepEqual([result.error.code, result.error.upstreamError], ['upstream_refused', 'access_denied']);
});

test('federation token endpoint error: a wrong client secret is a typed error, and an unset secret variable says which', async () => {
  upstream.next = { sub: 'ada-upstream' };
  const first = await roundTrip(oidc);
  const wrong = await completeUpstreamSignIn(oidc, first.request.pending, first.params, deps({ env: { [SECRET_ENV]: 'wrong' } }));
  assert.ok(!wrong.ok);
  assert.deepEqual([wrong.error.code, wrong.error.upstreamError], ['upstream_invalid', 'invalid_client']);
  const second = await roundTrip(oidc);
  const unset = await completeUpstreamSignIn(oidc, second.request.pending, second.params, deps({ env: {} }));
  assert.ok(!unset.ok);
  assert.equal(unset.error.code, 'provider_unavailable');
  assert.match(unset.error.detail, new RegExp(SECRET_ENV));
  assert.doesNotMatch(JSON.stringify(wrong), /upstream-secret-for-tests-only/);
});

test('federation upstream timeout: a token endpoint that never answers is abandoned at the deadline with a typed error', { timeout: 10_000 }, async () => {
  upstream.next = { sub: 'ada-upstream' };
  const { request, params } = await roundTrip(oidc);
  const started = Date.now();
  const result = await completeUpstreamSignIn(
    { ...oidc, tokenEndpoint: `${silentUrl}/token` },
    request.pending,
    params,
    deps({ limits: { timeoutMs: 300, maxBytes: 1024 } }),
  );
  assert.equal(failed(result), 'upstream_unreachable');
  assert.ok(Date.now() - started < 3_000);
});

test('federation upstream size bound: an answer larger than the bound is refused', async () => {
  upstream.next = { sub: 'ada-upstream', email: 'ada@example.com', email_verified: true };
  const { request, params } = await roundTrip(oidc);
  // The token response with its id_token is over 200 bytes.
  const result = await completeUpstreamSignIn(oidc, request.pending, params, deps({ limits: { timeoutMs: 2_000, maxBytes: 200 } }));
  assert.equal(failed(result), 'upstream_unreachable');
  assert.ok(!result.ok && /too_large/.test(result.error.detail));
});

test('federation disabled provider: its callback completes nothing', async () => {
  upstream.next = { sub: 'ada-upstream' };
  const { request, params } = await roundTrip(oidc);
  assert.equal(failed(await completeUpstreamSignIn({ ...oidc, enabled: false }, request.pending, params, deps())), 'provider_unavailable');
});

test('federation OAuth 2.0 kind (GitHub-style): the subject is the mapped id, the e-mail the primary one of the e-mails list, verified as listed', async () => {
  upstream.next = { sub: 'gh-account', githubId: 583231, login: 'octocat', name: 'The Octocat', email: 'octocat@example.com', email_verified: true };
  const { request, params } = await roundTrip(github);
  assert.equal(request.pending.nonce, null);
  const result = await completeUpstreamSignIn(github, request.pending, params, deps());
  assert.ok(result.ok, JSON.stringify(result));
  assert.deepEqual(
    [result.identity.subject, result.identity.preferredUsername, result.identity.email, result.identity.emailVerified],
    ['583231', 'octocat', 'octocat@example.com', true],
  );
  upstream.next = { sub: 'gh-unverified', githubId: 7, login: 'newbie', email: 'newbie@example.com', email_verified: false };
  const unverified = await roundTrip(github);
  const second = await completeUpstreamSignIn(github, unverified.request.pending, unverified.params, deps());
  assert.ok(second.ok);
  assert.equal(second.identity.emailVerified, false);
});

test('federation OAuth 2.0 kind: a mapping that finds no subject is a typed error', async () => {
  upstream.next = { sub: 'gh-account', githubId: 1 };
  const { request, params } = await roundTrip(github);
  const result = await completeUpstreamSignIn({ ...github, claims: { sub: 'no_such_member' } }, request.pending, params, deps());
  assert.equal(failed(result), 'missing_subject');
});
