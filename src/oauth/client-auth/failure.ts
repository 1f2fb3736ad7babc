// Every client-authentication failure leaves through here, so the answer cannot tell an unknown client
// from a wrong secret (RFC 6749 5.2: one body for all) and so rate limiting can count failures in one place.
import { OAuthError, type RefusalDetails } from '../../http/errors.js';

const CLIENT_AUTH_FAILED = 'Client authentication failed.';

export class ClientAuthFailure extends Error {
  override readonly name = 'ClientAuthFailure';
  /** Why it failed — a stable code, plus free text when the code needs it — for logs only, never sent to the caller. */
  constructor(
    readonly code: string,
    readonly detail?: string,
  ) {
    super(detail ?? code);
  }
}

/** RFC 6749 5.2: 401 invalid_client, with a Basic challenge when the client tried Basic. */
export const invalidClient = (usedBasic: boolean, log?: RefusalDetails): OAuthError =>
  new OAuthError('invalid_client', CLIENT_AUTH_FAILED, {
    status: 401,
    ...(log ? { log } : {}),
    ...(usedBasic ? { headers: { 'www-authenticate': 'Basic realm="gatehouse"' } } : {}),
  });
