// node-oidc-provider 9, configured to do the same work as Gatehouse in each scenario: a confidential client
// authenticating with client_secret_basic, ES256 JWT access tokens for the API via resource indicators
// (RFC 8707), RS256 id_tokens, refresh tokens rotated on every use (its default keeps a confidential client's
// refresh token; Gatehouse rotates), PKCE-bound codes. Storage: its default in-memory adapter — the library's
// own MemoryAdapter class, given an LRU store larger than its default 1,000 entries, because a pool of
// pre-minted codes or refresh tokens (tens of thousands) would otherwise be evicted before use — or, as in
// production, a Redis adapter (redis-adapter.ts).
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';

export const PEER_CLIENT = {
  id: 'bench-client',
  secret: 'bench-client-secret-0123456789-abcdefghijklmnopqrstuvwxyz',
  redirectUri: 'http://127.0.0.1/callback',
};

/** Scopes of the API resource server, as in Gatehouse's catalogue. */
const API_SCOPES = 'users:read users:write orders:read orders:write payments:write reports:read reports:write';

async function signingKeys(): Promise<Configuration['jwks']> {
  const es = await generateKeyPair('ES256', { extractable: true });
  const rs = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  return {
    keys: [
      { ...(await exportJWK(rs.privateKey)), alg: 'RS256', use: 'sig', kid: 'rs' },
      { ...(await exportJWK(es.privateKey)), alg: 'ES256', use: 'sig', kid: 'es' },
    ],
  } as Configuration['jwks'];
}

const store = new LRU({ maxSize: 10_000_000 });

export async function peerProvider(issuer: string, apiAudience: string, adapter?: (model: string) => unknown): Promise<Provider> {
  const configuration: Configuration = {
    clients: [
      {
        client_id: PEER_CLIENT.id,
        client_secret: PEER_CLIENT.secret,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [PEER_CLIENT.redirectUri],
      },
    ],
    jwks: await signingKeys(),
    adapter: adapter ?? ((model: string) => new MemoryAdapter(model, store)),
    cookies: { keys: ['bench-cookie-key-0123456789abcdef'] },
    scopes: ['openid', 'offline_access', 'profile', 'email'],
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => apiAudience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: API_SCOPES,
          audience: apiAudience,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    pkce: { required: () => true },
    // Every use of a refresh token rotates it, whatever the client (the default rotates only for public clients).
    rotateRefreshToken: true,
    ttl: {
      AccessToken: 600,
      ClientCredentials: 600,
      IdToken: 600,
      // Codes are minted ahead of a run; Gatehouse runs with AUTH_CODE_TTL=600 likewise.
      AuthorizationCode: 600,
      RefreshToken: 14 * 24 * 3600,
      Grant: 30 * 24 * 3600,
    },
  };
  return new Provider(issuer, configuration);
}
