// @ts-check
// DPoP (RFC 9449) for the console's token: an ES256 key pair made by WebCrypto in this page, its private key
// non-extractable (no script can read it out, not even an injected one: at most it can sign while the page
// is open), and proofs signed by WebCrypto. Nothing here is cryptography of our own: WebCrypto signs
// (ECDSA P-256, SHA-256, whose output is already the r‖s form JWS uses) and hashes; this module only writes
// the JWS compact form around it. The key lives in memory with the token: both go with the page.
// Without WebCrypto (an insecure context, an old browser) the console keeps bearer tokens (docs/console.md).

/** @type {{ privateKey: CryptoKey, jwk: { kty: string, crv: string, x: string, y: string } } | undefined} */
let key;
/** The latest server-provided nonce (RFC 9449 §8): every DPoP answer may carry a fresh one. */
let nonce = '';

/** @param {Uint8Array} bytes */
const base64url = (bytes) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
/** @param {unknown} value */
const encodeJson = (value) => base64url(new TextEncoder().encode(JSON.stringify(value)));

/** Makes the key pair once; false when this browser cannot (then the console uses bearer tokens). */
export async function prepareDpop() {
  if (key) return true;
  if (!globalThis.crypto?.subtle) return false;
  try {
    const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
    if (!kty || !crv || !x || !y) return false;
    key = { privateKey: pair.privateKey, jwk: { kty, crv, x, y } };
    return true;
  } catch {
    return false;
  }
}

export const usingDpop = () => key !== undefined;

/** Remembers the nonce a response offers (the `DPoP-Nonce` header). @param {Response} response */
export function noteNonce(response) {
  const offered = response.headers.get('dpop-nonce');
  if (offered) nonce = offered;
  return offered;
}

/**
 * A proof for one request: `htm` and `htu` (the URL without query and fragment), a fresh `jti`, `iat`, the
 * latest nonce, and `ath` (the access token's SHA-256) when a token goes with it.
 * @param {string} method @param {string} url @param {string} [accessToken]
 */
export async function dpopProof(method, url, accessToken) {
  if (!key) throw new Error('DPoP key not prepared');
  const target = new URL(url, location.origin);
  const payload = {
    jti: crypto.randomUUID(),
    htm: method.toUpperCase(),
    htu: `${target.origin}${target.pathname}`,
    iat: Math.floor(Date.now() / 1000),
    ...(nonce ? { nonce } : {}),
    ...(accessToken ? { ath: base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken)))) } : {}),
  };
  const input = `${encodeJson({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk })}.${encodeJson(payload)}`;
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key.privateKey, new TextEncoder().encode(input));
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

/** Whether an answer asks for a proof with a (new) nonce: 400 use_dpop_nonce at /token, 401 at the API. @param {Response} response @param {any} body */
export function wantsNonce(response, body) {
  const challenge = response.headers.get('www-authenticate') ?? '';
  return (
    Boolean(response.headers.get('dpop-nonce')) && (body?.error === 'use_dpop_nonce' || body?.code === 'use-dpop-nonce' || /use_dpop_nonce/.test(challenge))
  );
}
