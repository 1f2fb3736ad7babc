// RFC 8628 3.4-3.5: the device polls /token with its device_code. Approved (and not yet redeemed): tokens,
// from one statement that consumes the authorization and creates its grant, so of parallel polls exactly one
// gets tokens (storage/device-authorizations-repository.ts). Otherwise the answer says why, in this order:
// another client's or an unknown code → invalid_grant; already redeemed → invalid_grant; expired →
// expired_token; denied → access_denied; pending → slow_down when this poll came before the interval was up
// (the interval then grows by 5 s), else authorization_pending. Refresh tokens follow the authorization
// code's rules (docs/token-formats.md); a DPoP proof binds the tokens as everywhere (RFC 9449 5).
import { randomToken, sha256 } from '../../crypto/random.js';
import { OAuthError } from '../../http/errors.js';
import { DEVICE_CODE_GRANT, type Client } from '../../storage/repositories/clients-repository.js';
import type { DeviceAuthorizationsRepository } from '../../storage/repositories/device-authorizations-repository.js';
import type { GrantsRepository } from '../../storage/repositories/grants-repository.js';
import type { AuthenticationLookup } from '../issued-tokens/authentication-context.js';
import { refuseUnknownResource, signUserTokens, userTokenAudience, type UserTokensDeps } from '../issued-tokens/user-token-response.js';
import { REFRESH_TOKEN_BYTES } from '../refresh/index.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { Grant } from './grant-type.js';
import type { GrantDeps } from './index.js';

/** Why a poll got no tokens, as RFC 8628 3.5 names it. */
async function refusal(devices: Pick<DeviceAuthorizationsRepository, 'poll'>, deviceCodeHash: string, client: Client, now: number): Promise<OAuthError> {
  const poll = await devices.poll(deviceCodeHash, client.id);
  if (!poll)
    return new OAuthError('invalid_grant', 'The device_code is invalid or was issued to another client.', {
      log: { reason: 'device_code_invalid', client_id: client.id },
    });
  const { authorization, tooSoon } = poll;
  if (authorization.redeemedAt !== null)
    return new OAuthError('invalid_grant', 'The device_code was already used.', { log: { reason: 'device_code_reused', client_id: client.id } });
  if (authorization.expiresAt.getTime() <= now) return new OAuthError('expired_token', 'The device_code expired; start a new device authorization.');
  if (authorization.status === 'denied') return new OAuthError('access_denied', 'The user denied the request.');
  if (authorization.status === 'pending') {
    return tooSoon
      ? new OAuthError('slow_down', `Polling too fast: wait ${authorization.intervalSeconds} seconds between requests.`)
      : new OAuthError('authorization_pending', 'The user has not yet approved the request.');
  }
  // Approved, unredeemed and live, yet the redemption found nothing: it lost a race with a parallel poll.
  return new OAuthError('invalid_grant', 'The device_code was already used.', { log: { reason: 'device_code_reused', client_id: client.id } });
}

function deviceCodeGrant(deps: {
  devices: Pick<DeviceAuthorizationsRepository, 'redeem' | 'poll'>;
  grants: Pick<GrantsRepository, 'revoke'>;
  tokens: UserTokensDeps;
  resources: Pick<ResourceRegistry, 'catalogue'>;
  fallbackAudience: string;
  accessTokenTtl: number;
  grantLifetimeSeconds: number;
  refreshIdleSeconds: number;
  now: () => number;
  /** amr/acr of the sign-in on /device that approved (authentication-context.ts). */
  authentications?: AuthenticationLookup;
}): Grant {
  return {
    type: DEVICE_CODE_GRANT,
    parameters: ['device_code', 'resource'],
    async handle({ client, params, dpopJkt }) {
      const deviceCode = params.device_code;
      if (deviceCode === undefined) throw new OAuthError('invalid_request', 'device_code is required.');
      await refuseUnknownResource(deps.resources, params.resource);
      const deviceCodeHash = sha256(deviceCode);
      const refreshToken = client.grantTypes.includes('refresh_token') ? randomToken(REFRESH_TOKEN_BYTES) : undefined;
      const accessToken = deps.tokens.accessTokens.prepare();
      const redeemed = await deps.devices.redeem(deviceCodeHash, client.id, {
        grantLifetimeSeconds: deps.grantLifetimeSeconds,
        accessToken,
        ...(refreshToken ? { refresh: { tokenHash: sha256(refreshToken), idleSeconds: deps.refreshIdleSeconds } } : {}),
        dpopJkt,
      });
      if (!redeemed) throw await refusal(deps.devices, deviceCodeHash, client, deps.now());
      const { authorization, user, refreshIssued } = redeemed;
      try {
        const authentication =
          authorization.sessionId && authorization.authTime ? await deps.authentications?.find(authorization.sessionId, authorization.authTime) : undefined;
        const { audience, scope, lifetime, server } = await userTokenAudience(deps, {
          scope: authorization.scope,
          requested: params.resource,
          bound: authorization.resource,
          client,
        });
        return await signUserTokens(deps.tokens, {
          client,
          user,
          scope,
          authTime: Math.floor((authorization.authTime?.getTime() ?? deps.now()) / 1000),
          audience,
          server,
          lifetime,
          accessToken,
          dpopJkt,
          refreshToken: refreshIssued ? refreshToken : undefined,
          authentication,
          sid: authorization.sessionId,
        });
      } catch (error) {
        // The authorization is spent either way; its grant must not outlive a failed exchange.
        await deps.grants.revoke({ grantId: authorization.grantId });
        throw error;
      }
    },
  };
}

export const deviceCode = (deps: GrantDeps): Grant =>
  deviceCodeGrant({
    devices: deps.deviceAuthorizations,
    grants: deps.grantRecords,
    tokens: { accessTokens: deps.accessTokens, idTokens: deps.idTokens },
    resources: deps.resources,
    fallbackAudience: deps.config.API_AUDIENCE,
    accessTokenTtl: deps.config.ACCESS_TOKEN_TTL,
    grantLifetimeSeconds: deps.config.REFRESH_TOKEN_ABSOLUTE_TTL,
    refreshIdleSeconds: deps.config.REFRESH_TOKEN_IDLE_TTL,
    now: () => deps.clock.now(),
    authentications: deps.authentications,
  });
