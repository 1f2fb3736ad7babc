// The end of a successful flow: a code bound to the request and the login, delivered in the request's
// response mode (RFC 6749 4.1.2 with `iss`, RFC 9207) — or, for a flow started on /device, the approval of
// its device authorization (device/device-outcome.ts).
import type { AuthorizationRequest } from '../oauth/authorize/authorization-request.js';
import { successResponse, type AuthorizationResponse } from '../oauth/authorize/redirect.js';
import type { AuthorizationCodeIssuer } from '../oauth/codes/authorization-codes.js';
import type { BrowserSession } from '../storage/repositories/browser-sessions-repository.js';
import type { DeviceAuthorizationsRepository } from '../storage/repositories/device-authorizations-repository.js';
import type { Next } from './answer.js';
import { approveDevice, deviceOf } from './device/device-outcome.js';

export async function completeAuthorization(
  request: AuthorizationRequest,
  session: BrowserSession & { userId: string; authTime: number },
  deps: { codes: AuthorizationCodeIssuer; issuer: string; devices: Pick<DeviceAuthorizationsRepository, 'decide'> },
): Promise<AuthorizationResponse | Exclude<Next, AuthorizationResponse>> {
  const device = deviceOf(request);
  if (device) return approveDevice(device, session, deps.devices);
  const code = await deps.codes.issue({
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scope: request.scope,
    userId: session.userId,
    authTime: session.authTime,
    sessionId: session.sid,
    ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
    ...(request.resource !== undefined ? { resource: request.resource } : {}),
    ...(request.dpopJkt !== undefined ? { dpopJkt: request.dpopJkt } : {}),
  });
  return successResponse(request, code, deps.issuer);
}

export const isLoggedIn = (session: BrowserSession | undefined): session is BrowserSession & { userId: string; authTime: number } =>
  session?.userId != null && session.authTime !== null;
