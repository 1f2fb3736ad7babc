// @ts-check
// Signing the operator in through Gatehouse itself, as the built-in public client `gatehouse-console`:
// authorization code with PKCE (S256). The tokens live in this module's memory only — never in storage, so
// a reload or a new tab signs in again (a redirect round trip while the Gatehouse session lasts). Only the
// PKCE verifier, the state and the page to come back to are kept in sessionStorage across the redirect.
// admin:write is given only after a second factor: `stepUp()` asks again with acr_values of the MFA class.
// The token is DPoP-bound when the browser has WebCrypto (dpop.js): the key pair is made here, after the
// redirect back, so it never has to survive a page load; PKCE protects the code on its way.
import { randomId } from './dom.js';
import { dpopProof, noteNonce, prepareDpop, wantsNonce } from './dpop.js';

const ACR_MFA = 'urn:gatehouse:acr:mfa';
const PENDING = 'gatehouse-console-sign-in';
const body = document.body.dataset;
const issuer = body.issuer ?? location.origin;
const clientId = body.clientId ?? 'gatehouse-console';
const redirectUri = body.redirectUri ?? `${location.origin}/console/callback`;

/** @type {{ token: string, type: 'DPoP' | 'Bearer', scope: string[], acr: string | undefined, subject: string | undefined, expiresAt: number } | undefined} */
let session;

export const accessToken = () => session?.token ?? '';
/** The Authorization scheme the token needs: DPoP for a bound token (then every call carries a proof). */
export const tokenType = () => session?.type ?? 'Bearer';
export const signedIn = () => session !== undefined && session.expiresAt > Date.now();
export const canWrite = () => session?.scope.includes('admin:write') === true;
/** Whether the sign-in already reached the second-factor class (a read-only operator stays read-only then). */
export const steppedUp = () => session?.acr === ACR_MFA;
export const subject = () => session?.subject;

/** @param {string} value */
const base64url = (value) => btoa(value).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** Sends the browser to /authorize; comes back to the current page. @param {{ stepUp?: boolean }} [options] */
export async function signIn(options = {}) {
  const verifier = randomId(32);
  const state = randomId();
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  const challenge = base64url(String.fromCharCode(...new Uint8Array(digest)));
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, returnTo: location.pathname + location.search }));
  const url = new URL('/authorize', issuer);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid admin:read admin:write',
    state,
    nonce: randomId(),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(options.stepUp ? { acr_values: ACR_MFA } : {}),
  }).toString();
  location.assign(url.href);
}

/** The id_token's claims, for display only (the token itself came straight from /token over TLS). @param {string | undefined} idToken */
function claimsOf(idToken) {
  try {
    const part = (idToken ?? '').split('.')[1] ?? '';
    return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return {};
  }
}

/**
 * At /console/callback: checks the state, redeems the code, forgets the verifier. Returns the page to go
 * back to, or throws an Error whose message is for the operator.
 */
export async function finishSignIn() {
  const params = new URLSearchParams(location.search);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null');
  sessionStorage.removeItem(PENDING);
  if (params.get('error')) throw new Error(params.get('error_description') ?? `Sign-in failed (${params.get('error')}).`);
  if (!pending || pending.state !== params.get('state')) throw new Error('This sign-in was not started here (or was already used). Start again.');
  const tokenUrl = new URL('/token', issuer).href;
  const dpop = await prepareDpop();
  const exchange = async () => {
    /** @type {Record<string, string>} */
    const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (dpop) headers.dpop = await dpopProof('POST', tokenUrl);
    const response = await fetch(tokenUrl, {
      method: 'POST',
      headers,
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: params.get('code') ?? '',
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: pending.verifier,
      }),
    });
    noteNonce(response);
    return { response, answer: await response.json().catch(() => ({})) };
  };
  let { response, answer } = await exchange();
  // The token endpoint wants a proof with its nonce (DPOP_NONCE_REQUIRED): the code is still unspent, ask again once.
  if (dpop && wantsNonce(response, answer)) ({ response, answer } = await exchange());
  if (!response.ok) {
    if (answer.error === 'invalid_scope')
      throw new Error(
        'Your account is not an operator of this Gatehouse, so it cannot use the console. An operator can give you access with `gatehouse users grant-admin`.',
      );
    throw new Error(answer.error_description ?? 'Sign-in failed. Start again.');
  }
  const claims = claimsOf(answer.id_token);
  session = {
    token: answer.access_token,
    type: String(answer.token_type).toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer',
    scope: String(answer.scope ?? '').split(' '),
    acr: claims.acr,
    subject: claims.sub,
    expiresAt: Date.now() + (Number(answer.expires_in) - 30) * 1000,
  };
  return typeof pending.returnTo === 'string' && pending.returnTo.startsWith('/console') && !pending.returnTo.startsWith('/console/callback')
    ? pending.returnTo
    : '/console/';
}

/** Ends the Gatehouse session too (RP-initiated logout), then back to the console's start. */
export function signOut() {
  session = undefined;
  const url = new URL('/logout', issuer);
  url.search = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: `${issuer}/console/` }).toString();
  location.assign(url.href);
}
