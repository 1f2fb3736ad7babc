// How a flow started on /device ends (RFC 8628 3.3): where an authorization request would answer the client's
// redirect_uri, a device flow approves or denies its device authorization — once, in one statement — and
// shows the user a page saying so (the device learns it by polling /token).
import type { FastifyReply } from 'fastify';
import type { OAuthError } from '../../http/errors.js';
import type { AuthorizationRequest } from '../../oauth/authorize/authorization-request.js';
import { errorResponse } from '../../oauth/authorize/redirect.js';
import type { BrowserSession } from '../../storage/repositories/browser-sessions-repository.js';
import type { DeviceAuthorizationsRepository } from '../../storage/repositories/device-authorizations-repository.js';
import { sendAuthorizationResponse, type AnswerDeps } from '../answer.js';
import { seeOther } from '../interaction-context.js';

export const DEVICE_RESULT_PATH = '/device/result';
export type DeviceOutcome = 'approved' | 'denied' | 'gone';

const deviceResultPath = (outcome: DeviceOutcome): string => `${DEVICE_RESULT_PATH}?outcome=${outcome}`;

/** The device authorization of a flow started on /device, if this is one. */
export const deviceOf = (request: AuthorizationRequest): { userCodeHash: string } | undefined => request.device;

/** Approves the device authorization for the signed-in user; 'gone' when it expired or was decided meanwhile. */
export async function approveDevice(
  device: { userCodeHash: string },
  session: BrowserSession & { userId: string; authTime: number },
  devices: Pick<DeviceAuthorizationsRepository, 'decide'>,
): Promise<string> {
  const approved = await devices.decide(device.userCodeHash, {
    approve: { userId: session.userId, authTime: new Date(session.authTime * 1000), sessionId: session.sid },
  });
  return deviceResultPath(approved ? 'approved' : 'gone');
}

/**
 * The flow ends without approval (denied, or a second factor the client demands declined): a device flow
 * denies its authorization (the device polls access_denied), any other answers the client with `error`.
 */
export async function refuseFlow(
  reply: FastifyReply,
  request: AuthorizationRequest,
  error: OAuthError,
  deps: AnswerDeps & { devices: Pick<DeviceAuthorizationsRepository, 'decide'> },
): Promise<FastifyReply> {
  const device = deviceOf(request);
  if (!device) return sendAuthorizationResponse(reply, errorResponse(request, error, deps.issuer), deps);
  const denied = await deps.devices.decide(device.userCodeHash, { deny: true });
  return seeOther(reply, deviceResultPath(denied ? 'denied' : 'gone'));
}
