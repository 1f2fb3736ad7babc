// The registration of the built-in admin console (/console): a public client (authorization code + PKCE,
// no secret, no refresh token: its tokens live in the page's memory and a new one is a redirect away), with
// the fixed id `gatehouse-console`, registered at each start like the demo client. It is the one client
// that may ask /authorize for the operator-only admin scopes; what a user actually receives is decided at
// the code exchange by oauth/console-access.ts. docs/console.md
import type { Client, ClientsRepository } from '../../storage/repositories/clients-repository.js';

export const CONSOLE_CLIENT_ID = 'gatehouse-console';
export const CONSOLE_PATH = '/console';
export const CONSOLE_SCOPES = ['openid', 'admin:read', 'admin:write'] as const;

export const consoleRedirectUri = (issuer: string): string => `${issuer}${CONSOLE_PATH}/callback`;

export function ensureConsoleClient(clients: Pick<ClientsRepository, 'upsert'>, issuer: string): Promise<Client> {
  return clients.upsert({
    id: CONSOLE_CLIENT_ID,
    name: 'Gatehouse admin console',
    type: 'public',
    secretHash: null,
    authMethod: 'none',
    redirectUris: [consoleRedirectUri(issuer)],
    postLogoutRedirectUris: [`${issuer}${CONSOLE_PATH}/`],
    grantTypes: ['authorization_code'],
    scopes: [...CONSOLE_SCOPES],
    jwks: null,
    jwksUri: null,
    idTokenSignedResponseAlg: 'ES256',
    // Gatehouse's own page for its own operators: nothing to consent to, the operator role is the consent.
    skipConsent: true,
    requireMfa: false,
    allowedOrigins: [],
    defaultResource: null,
  });
}
