// When the user must (re-)authenticate or consent (OIDC Core 3.1.2.1 prompt and max_age, 3.1.2.4).
import type { AuthorizationRequest } from '../oauth/authorize/authorization-request.js';
import type { BrowserSession } from '../storage/repositories/browser-sessions-repository.js';
import type { Client } from '../storage/repositories/clients-repository.js';
import type { ConsentsRepository } from '../storage/repositories/consents-repository.js';

/** No logged-in session, prompt=login, another user hinted, or max_age elapsed (max_age=0 behaves as prompt=login). */
export function needsLogin(request: AuthorizationRequest, session: BrowserSession | undefined, nowSeconds: number): boolean {
  if (!session?.userId || session.authTime === null) return true;
  if (request.prompt.includes('login')) return true;
  if (request.idTokenHintSub !== undefined && request.idTokenHintSub !== session.userId) return true;
  return request.maxAge !== undefined && nowSeconds - session.authTime >= request.maxAge;
}

/** First-party (skip-consent) clients never ask; prompt=consent always asks; otherwise remembered consent counts. */
export async function needsConsent(
  request: AuthorizationRequest,
  client: Pick<Client, 'skipConsent'>,
  userId: string,
  consents: Pick<ConsentsRepository, 'covers'>,
): Promise<boolean> {
  // RFC 8628 5.4 (remote phishing): a device flow always asks, even a first-party client's, and says to
  // approve only a request the user started on their own device.
  if (request.device) return true;
  if (client.skipConsent) return false;
  if (request.prompt.includes('consent')) return true;
  return !(await consents.covers(userId, request.clientId, request.scope));
}
