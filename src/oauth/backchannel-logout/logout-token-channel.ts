// The outbox's `backchannel_logout` channel (OpenID Connect Back-Channel Logout 1.0, docs/backchannel-logout.md):
// signs a logout token when it is delivered and POSTs it, form-encoded as `logout_token`, to the client's
// backchannel_logout_uri under the outbound address rules (pinned-post.ts). The token (2.4): iss, aud (the
// client), iat, exp, jti (the outbox message id: the same on every attempt, so the client can drop a
// duplicate), sub and/or sid, the back-channel logout event, never a nonce; typed `logout+jwt` (RFC 8725 3.11)
// and signed like the client's id_tokens.
import type { Clock } from '../../clock.js';
import type { KeyService } from '../../crypto/keys.js';
import { OutboundRefused, type OutboundPolicy } from '../../http/outbound/outbound-policy.js';
import { pinnedPost } from '../../http/outbound/pinned-post.js';
import { PermanentDeliveryError, type OutboxChannel } from '../../outbox/channel.js';
import type { ClientsRepository } from '../../storage/repositories/clients-repository.js';
import { BACKCHANNEL_LOGOUT_CHANNEL } from '../../user-rules/backchannel-logout.js';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
export const LOGOUT_TOKEN_TYPE = 'logout+jwt';
/** Long enough for the POST and the client's clock skew; a retry signs a new one. */
const LOGOUT_TOKEN_TTL_SECONDS = 120;

export interface LogoutTokenChannelDeps {
  issuer: string;
  clock: Clock;
  keys: Pick<KeyService, 'sign'>;
  clients: Pick<ClientsRepository, 'find'>;
  policy: OutboundPolicy;
  timeoutMs: number;
  userAgent: string;
}

export function logoutTokenChannel(deps: LogoutTokenChannelDeps): OutboxChannel {
  return {
    name: BACKCHANNEL_LOGOUT_CHANNEL,
    async deliver(message) {
      const client = await deps.clients.find(message.recipient);
      if (!client) throw new PermanentDeliveryError('the client was deleted or disabled');
      if (!client.backchannelLogoutUri) throw new PermanentDeliveryError('the client no longer has a backchannel_logout_uri');
      const { sub, sid } = message.payload as { sub?: unknown; sid?: unknown };
      if (typeof sub !== 'string' && typeof sid !== 'string') throw new PermanentDeliveryError('the message names neither sub nor sid');
      if (client.backchannelLogoutSessionRequired && typeof sid !== 'string') throw new PermanentDeliveryError('the client requires sid');
      const iat = Math.floor(deps.clock.now() / 1000);
      const token = await deps.keys.sign(
        {
          iss: deps.issuer,
          aud: client.id,
          iat,
          exp: iat + LOGOUT_TOKEN_TTL_SECONDS,
          jti: message.id,
          ...(typeof sub === 'string' ? { sub } : {}),
          ...(typeof sid === 'string' ? { sid } : {}),
          events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
        },
        { alg: client.idTokenSignedResponseAlg, typ: LOGOUT_TOKEN_TYPE },
      );
      try {
        await pinnedPost(client.backchannelLogoutUri, {
          policy: deps.policy,
          timeoutMs: deps.timeoutMs,
          maxBytes: 16 * 1024,
          // 2.5: the RP must not be cached or followed; the answer's body is only kept for the error text.
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': deps.userAgent, 'cache-control': 'no-store' },
          body: new URLSearchParams({ logout_token: token }).toString(),
        });
      } catch (error) {
        if (error instanceof OutboundRefused && (error.code === 'url_refused' || error.code === 'address_refused'))
          throw new PermanentDeliveryError(`refused: ${error.message}`);
        throw error;
      }
    },
  };
}
