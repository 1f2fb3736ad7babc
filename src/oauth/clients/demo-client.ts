// The registration of the built-in demo application (/demo): a confidential client with the fixed id
// `gatehouse-demo`. Its secret is derived from the key-encryption key (HKDF, RFC 5869) rather than
// stored: every instance sharing that key computes the same secret, so registering at each start is
// idempotent and no instance can invalidate another's secret. Only the secret's SHA-256 is in the database.
import { hkdfSync } from 'node:crypto';
import { sha256 } from '../../crypto/random.js';
import type { Client, ClientsRepository } from '../../storage/repositories/clients-repository.js';

export const DEMO_CLIENT_ID = 'gatehouse-demo';
const DEMO_SCOPE = 'openid profile email offline_access users:read';

export interface DemoRegistration {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
  scope: string;
}

export function demoRegistration(issuer: string, keyEncryptionKey: Buffer): DemoRegistration {
  const secret = Buffer.from(hkdfSync('sha256', keyEncryptionKey, Buffer.from(issuer), Buffer.from('gatehouse demo client secret'), 32));
  return {
    clientId: DEMO_CLIENT_ID,
    clientSecret: secret.toString('base64url'),
    redirectUri: `${issuer}/demo/callback`,
    postLogoutRedirectUri: `${issuer}/demo`,
    scope: DEMO_SCOPE,
  };
}

export function ensureDemoClient(clients: Pick<ClientsRepository, 'upsert'>, registration: DemoRegistration): Promise<Client> {
  return clients.upsert({
    id: registration.clientId,
    name: 'Demo application',
    type: 'confidential',
    secretHash: sha256(registration.clientSecret),
    authMethod: 'client_secret_basic',
    redirectUris: [registration.redirectUri],
    postLogoutRedirectUris: [registration.postLogoutRedirectUri],
    grantTypes: ['authorization_code', 'refresh_token'],
    scopes: registration.scope.split(' '),
    jwks: null,
    jwksUri: null,
    idTokenSignedResponseAlg: 'RS256',
    skipConsent: false,
  });
}
