// Settings of keys and tokens: the key-encryption key, audiences and remote key sets, token and session
// lifetimes, clock skew, DPoP nonces, and how long registrations and keys are cached (docs/token-formats.md,
// docs/key-rotation.md).
import { oneOf, httpUrl, base64Key, seconds, durationOrOff, type Setting } from './setting.js';

export const tokenSettings = {
  KEY_ENCRYPTION_KEY: {
    doc: 'Key-encryption key (32 random bytes, base64url) that seals private signing keys at rest. Generated into DATA_DIR in development; required in production.',
    expects: '32 bytes encoded as base64url (e.g. `openssl rand -base64 32 | tr "+/" "-_"`)',
    parse: base64Key,
    fallback: undefined as string | undefined,
    docDefault: '(generated in DATA_DIR outside production)',
  },
  API_AUDIENCE: {
    doc: 'Identifier of the resource API, the `aud` of every access token.',
    expects: 'an http(s) URL',
    parse: httpUrl,
    fallback: (p: Record<string, unknown>) => `${p.ISSUER as string}/v1`,
    docDefault: '$ISSUER/v1',
  },
  JWKS_URL: {
    doc: 'Verify resource-API access tokens against this remote JWKS instead of the in-process keys (API deployed apart from the authorization server).',
    expects: 'an http(s) URL',
    parse: httpUrl,
    fallback: undefined as string | undefined,
    docDefault: '(in-process keys)',
  },
  ACCESS_TOKEN_TTL: seconds('Access token lifetime.', 600, 30, 86_400),
  ID_TOKEN_TTL: seconds('id_token lifetime.', 600, 30, 86_400),
  AUTH_CODE_TTL: seconds('Authorization code lifetime.', 60, 5, 600),
  DEVICE_CODE_TTL: seconds(
    'Lifetime of a device authorization (RFC 8628): how long the user has to enter the user code and approve (docs/device-flow.md).',
    600,
    60,
    1800,
  ),
  DEVICE_POLL_INTERVAL: seconds(
    'Seconds a device client waits between polls of /token (RFC 8628 `interval`); each poll sooner gets slow_down and 5 s more.',
    5,
    1,
    60,
  ),
  REFRESH_TOKEN_IDLE_TTL: seconds('Refresh token idle lifetime (unused for this long → expired).', 1_209_600),
  REFRESH_TOKEN_ABSOLUTE_TTL: seconds('Refresh token family absolute lifetime, counted from the first login.', 2_592_000),
  REFRESH_REUSE_GRACE: seconds(
    'Seconds in which the same rotated refresh token presented again returns the same new pair instead of revoking the family. 0 = off.',
    0,
    0,
    60,
  ),
  SESSION_TTL: seconds('Browser login session lifetime.', 43_200, 60),
  REAUTH_MAX_AGE: seconds(
    'How recent a proof of the account (the sign-in, the current password or a second factor) must be for /account to add, regenerate or remove a second factor; older sessions are asked to confirm it is them (docs/security/account-factors.md).',
    300,
    30,
    3600,
  ),
  CLOCK_SKEW: seconds('Tolerance applied to exp/nbf/iat checks.', 30, 0, 300),
  DPOP_NONCE_REQUIRED: {
    doc: 'Where a DPoP proof must carry a server-provided nonce (RFC 9449 §8, §9): `token` = at /token (a proof without one gets `use_dpop_nonce` and a `DPoP-Nonce` header, which standard clients retry with), `all` = also at /v1 and /userinfo, `off` = nowhere. A nonce that is sent is always checked, and every DPoP response offers a fresh one.',
    expects: 'one of off, token, all',
    parse: oneOf('off', 'token', 'all'),
    fallback: 'token',
  },
  CLIENT_CACHE_TTL: seconds(
    'How long an instance reuses a client registration it has read (keeps /token, /authorize and the login pages off the database); a change made through /register takes effect at once on that instance, one made elsewhere (CLI, another instance) within this time. 0 = read every time.',
    5,
    0,
    300,
  ),
  JWKS_CACHE_TTL: seconds(
    'Cache time of the JWKS document; a rotated key signs only after JWKS_CACHE_TTL + KEY_REFRESH_INTERVAL + CLOCK_SKEW.',
    300,
    0,
    86_400,
  ),
  KEY_REFRESH_INTERVAL: seconds(
    'How often an instance re-reads the signing-key rows for its JWKS, signing and verifying (a key rotated elsewhere is served by every instance within this time). Every process sharing the database, the one running `keys rotate` included, must use the same value.',
    30,
    1,
    300,
  ),
  KEY_ROTATION_INTERVAL: durationOrOff(
    'Rotate the signing keys automatically this long after the newest was published (e.g. 90d), on the staged schedule of `keys rotate`, once for the whole deployment (docs/key-rotation.md). Must exceed JWKS_CACHE_TTL + KEY_REFRESH_INTERVAL + CLOCK_SKEW.',
    3600,
  ),
} satisfies Record<string, Setting<unknown>>;
