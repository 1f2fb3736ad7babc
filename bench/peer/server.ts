// The peer in its own process. Set-up calls mint codes and refresh tokens through node-oidc-provider's own
// models (Grant, AuthorizationCode, RefreshToken), stored by its default in-memory adapter, or in Redis
// when PEER_REDIS_URL is set (redis-adapter.ts).
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { reportStartFailure, serveRpc } from '../lib/child-rpc.js';
import { PEER_CLIENT, peerProvider } from './provider.js';
import { redisAdapterFactory } from './redis-adapter.js';

interface GrantInput {
  count: number;
  sub: string;
  scope: string;
  codeChallenge: string;
}

async function main(): Promise<void> {
  // The issuer must be known before listening: take a free port first, then build the provider for it.
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const audience = `${issuer}/v1`;
  const redis = process.env.PEER_REDIS_URL ? redisAdapterFactory(process.env.PEER_REDIS_URL) : undefined;
  const provider = await peerProvider(issuer, audience, redis?.adapter);
  provider.on('server_error', (_ctx: unknown, error: Error) => console.error('peer server_error', error));
  server.on('request', provider.callback());

  const client = await provider.Client.find(PEER_CLIENT.id);
  if (!client) throw new Error('peer client not registered');
  const [oidcScope, apiScope] = splitScope;

  async function newGrant(sub: string, scope: string): Promise<string> {
    const grant = new provider.Grant({ accountId: sub, clientId: PEER_CLIENT.id });
    grant.addOIDCScope(oidcScope(scope));
    grant.addResourceScope(audience, apiScope(scope));
    return grant.save();
  }

  serveRpc(
    port,
    {
      info: () => ({ issuer, audience, client: PEER_CLIENT }),
      mintCodes: async ({ count, sub, scope, codeChallenge }: GrantInput) => {
        const codes: string[] = [];
        for (let i = 0; i < count; i++) {
          const grantId = await newGrant(sub, scope);
          const code = new provider.AuthorizationCode({
            accountId: sub,
            grantId,
            client,
            redirectUri: PEER_CLIENT.redirectUri,
            scope,
            resource: audience,
            codeChallenge,
            codeChallengeMethod: 'S256',
            authTime: Math.floor(Date.now() / 1000),
            expiresWithSession: false,
          });
          codes.push(await code.save());
        }
        return codes;
      },
      mintRefreshTokens: async ({ count, sub, scope }: Omit<GrantInput, 'codeChallenge'>) => {
        const tokens: string[] = [];
        for (let i = 0; i < count; i++) {
          const grantId = await newGrant(sub, scope);
          const token = new provider.RefreshToken({
            accountId: sub,
            grantId,
            client,
            scope,
            resource: audience,
            gty: 'authorization_code',
            authTime: Math.floor(Date.now() / 1000),
            expiresWithSession: false,
          });
          tokens.push(await token.save());
        }
        return tokens;
      },
    },
    async () => {
      server.close();
      await redis?.quit();
    },
  );
}

const OIDC_SCOPES = new Set(['openid', 'offline_access', 'profile', 'email', 'address', 'phone']);
const splitScope = [
  (scope: string) =>
    scope
      .split(' ')
      .filter((s) => OIDC_SCOPES.has(s))
      .join(' '),
  (scope: string) =>
    scope
      .split(' ')
      .filter((s) => !OIDC_SCOPES.has(s))
      .join(' '),
] as const;

main().catch(reportStartFailure);
