// The demo as an OAuth client of this server, over HTTP only: discovery, authorization code + PKCE with
// state and nonce, the token endpoint with client_secret_basic, refresh, and the id_token's signature
// checked against the published JWKS. oauth4webapi does the protocol checks (state, RFC 9207 iss,
// nonce, id_token claims); jose verifies signatures. Nothing here reads the server's internals.
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from 'jose';

export interface RelyingPartyOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
  scope: string;
}

/** What a sign-in started in this browser must find again on the callback. */
export interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken?: string;
  /** Verified id_token claims. */
  idClaims: JWTPayload;
  /** When the access token expires (ms since epoch, from expires_in). */
  accessExpiresAt?: number;
}

export interface RelyingParty {
  startLogin(): Promise<{ url: string; pending: PendingLogin }>;
  /** Checks the callback against the pending login (state, iss, error) and redeems the code (PKCE, nonce). */
  finishLogin(callbackUrl: URL, pending: PendingLogin): Promise<Tokens>;
  refresh(tokens: Tokens): Promise<Tokens>;
  /** GET on the resource API with the access token; answers the status and the parsed body. */
  callApi(path: string, accessToken: string): Promise<{ status: number; body: unknown }>;
  logoutUrl(idToken: string): Promise<string>;
}

export const decodeAccessToken = (token: string): JWTPayload | undefined => {
  try {
    return decodeJwt(token);
  } catch {
    return undefined;
  }
};

export function relyingParty(options: RelyingPartyOptions): RelyingParty {
  const issuer = new URL(options.issuer);
  // A plain-http issuer is only possible outside production (config.ts); oauth4webapi needs the opt-in.
  const http = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const client: oauth.Client = { client_id: options.clientId };
  const auth = oauth.ClientSecretBasic(options.clientSecret);
  // Discovered on first use: at composition time the server is not listening yet. A failed discovery is
  // not cached, so the next request tries again.
  let discovered: Promise<{ as: oauth.AuthorizationServer; jwks: ReturnType<typeof createRemoteJWKSet> }> | undefined;
  const server = () => {
    discovered ??= (async () => {
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, http));
      if (!as.jwks_uri || !as.authorization_endpoint) throw new Error('discovery lacks jwks_uri or authorization_endpoint');
      return { as, jwks: createRemoteJWKSet(new URL(as.jwks_uri)) };
    })().catch((error: unknown) => {
      discovered = undefined;
      throw error;
    });
    return discovered;
  };

  const toTokens = async (result: oauth.TokenEndpointResponse, previous?: Tokens): Promise<Tokens> => {
    const { jwks } = await server();
    const idToken = result.id_token ?? previous?.idToken;
    if (!idToken) throw new Error('no id_token');
    const { payload } = await jwtVerify(idToken, jwks, { issuer: options.issuer, audience: options.clientId });
    const refreshToken = result.refresh_token ?? previous?.refreshToken;
    return {
      accessToken: result.access_token,
      idToken,
      idClaims: payload,
      ...(refreshToken ? { refreshToken } : {}),
      ...(result.expires_in !== undefined ? { accessExpiresAt: Date.now() + result.expires_in * 1000 } : {}),
    };
  };

  return {
    async startLogin() {
      const { as } = await server();
      const pending = { state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce(), codeVerifier: oauth.generateRandomCodeVerifier() };
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: options.clientId,
        redirect_uri: options.redirectUri,
        scope: options.scope,
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
      }).toString();
      return { url: url.href, pending };
    },
    async finishLogin(callbackUrl, pending) {
      const { as } = await server();
      const params = oauth.validateAuthResponse(as, client, callbackUrl, pending.state);
      const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, options.redirectUri, pending.codeVerifier, http);
      return toTokens(await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce, requireIdToken: true }));
    },
    async refresh(tokens) {
      if (!tokens.refreshToken) throw new Error('no refresh token');
      const { as } = await server();
      const response = await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refreshToken, http);
      return toTokens(await oauth.processRefreshTokenResponse(as, client, response), tokens);
    },
    async callApi(path, accessToken) {
      let response: Response;
      try {
        response = await oauth.protectedResourceRequest(accessToken, 'GET', new URL(path, issuer), new Headers({ accept: 'application/json' }), null, http);
      } catch (error) {
        // A 401/403 with a WWW-Authenticate challenge (expired token, missing scope) is an answer to show.
        if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
        response = error.response;
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON: shown as text.
      }
      return { status: response.status, body };
    },
    async logoutUrl(idToken) {
      const { as } = await server();
      const url = new URL(as.end_session_endpoint ?? `${options.issuer}/logout`);
      url.search = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: options.postLogoutRedirectUri }).toString();
      return url.href;
    },
  };
}
