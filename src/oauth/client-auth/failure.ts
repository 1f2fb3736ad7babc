// Every client-authentication failure leaves through here, so the answer cannot tell an unknown client
// from a wrong secret (RFC 6749 5.2: one body for all) and so rate limiting can count failures in one place.
import { OAuthError } from '../../http/errors.js';

export const CLIENT_AUTH_FAILED = 'Client authentication failed.';

export class ClientAuthFailure extends Error {
  override readonly name = 'ClientAuthFailure';
  /** Why it failed, for logs only; never sent to the caller. `code` is the stable reason code logs carry. */
  constructor(
    readonly reason: string,
    readonly code: string = 'client_auth_failed',
  ) {
    super(reason);
  }
}

/** RFC 6749 5.2: 401 invalid_client, with a Basic challenge when the client tried Basic. */
export const invalidClient = (usedBasic: boolean): OAuthError =>
  new OAuthError('invalid_client', CLIENT_AUTH_FAILED, {
    status: 401,
    ...(usedBasic ? { headers: { 'www-authenticate': 'Basic realm="gatehouse"' } } : {}),
  });
