// The /device page (RFC 8628 3.3): the user enters the code their device shows (or confirms the one
// verification_uri_complete filled in), then the ordinary flow runs — the same login, second factors, set-up
// in the flow and passkeys as /authorize (beginAuthorization, the one sign-in pipeline) — and ends on a
// consent page that always shows the client, the scopes and a warning (RFC 8628 5.4). Allow approves the
// device authorization, Deny denies it (device-outcome.ts).
// Guessing codes (RFC 8628 5.1) is bounded twice, each charged before the code is checked: per address
// (RATE_LIMIT_USER_CODES a minute, refunded when the code was valid) and per code (MAX_ENTRIES_PER_CODE
// entries, counted by the lookup statement itself). docs/device-flow.md gives the arithmetic.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sha256 } from '../../crypto/random.js';
import { PageError } from '../../http/errors.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { addressKey } from '../../http/address-key.js';
import { logRefusal } from '../../http/refusal-log.js';
import { safeEqual } from '../../crypto/random.js';
import type { AuthorizationRequest } from '../../oauth/authorize/authorization-request.js';
import { DEVICE_PAGE_PATH } from '../../oauth/device/device-authorizations.js';
import { formatUserCode, normalizeUserCode } from '../../oauth/device/user-code.js';
import { sendNext } from '../answer.js';
import { beginAuthorization } from '../begin.js';
import { checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { sendPage } from '../interaction-context.js';
import { currentDeviceCsrfToken, ensureDeviceCsrfToken } from './device-csrf.js';
import { DEVICE_RESULT_PATH, type DeviceOutcome } from './device-outcome.js';
import { renderDeviceEntryPage, renderDeviceResultPage } from './device-pages.js';

/** How many times one user code may be entered; more means someone else is trying it too. */
const MAX_ENTRIES_PER_CODE = 5;

const USER_CODE_NOT_VALID = 'That code is not valid. Check the code on your device and try again.';
const USER_CODE_ENTERED_TOO_OFTEN = 'This code was entered too many times. Start again on your device to get a new code.';

const options = { config: { face: 'page' as const, limit: 'pages' as const } };

/** The parked request of a device flow: no redirect_uri, state or PKCE; its end is the device authorization. */
const deviceRequest = (clientId: string, scope: string[], resource: string | null, userCodeHash: string): AuthorizationRequest => ({
  clientId,
  redirectUri: '',
  state: '',
  scope,
  codeChallenge: '',
  prompt: [],
  parameters: {},
  ...(resource !== null ? { resource } : {}),
  device: { userCodeHash },
});

export function deviceRoutes(app: FastifyInstance, deps: FlowDeps, limits: Pick<RateLimits, 'reserve'>): void {
  const entryPage = (request: FastifyRequest, reply: FastifyReply, input: { userCode?: string | undefined; error?: string }, status = 200) => {
    const csrfToken = ensureDeviceCsrfToken(request, reply, deps.issuer);
    return sendPage(
      reply,
      renderDeviceEntryPage({
        brand: deps.brand,
        action: DEVICE_PAGE_PATH,
        csrfToken,
        ...(input.userCode !== undefined ? { userCode: input.userCode } : {}),
        ...(input.error ? { error: input.error } : {}),
      }),
      status,
    );
  };

  // Showing the form, even prefilled, looks nothing up and charges nothing: only the user's submit does.
  app.get(DEVICE_PAGE_PATH, options, (request, reply) => {
    const typed = (request.query as Record<string, unknown>).user_code;
    const code = typeof typed === 'string' ? normalizeUserCode(typed) : undefined;
    return entryPage(request, reply, { userCode: code && formatUserCode(code) });
  });

  app.post(DEVICE_PAGE_PATH, options, async (request, reply) => {
    checkSameOrigin(request, deps.issuer);
    const expected = currentDeviceCsrfToken(request, deps.issuer);
    const submitted = formField(request.body, 'csrf');
    if (!expected || !submitted || !safeEqual(submitted, expected)) {
      throw new PageError(
        'Request refused',
        'The form has expired or did not come from this site. Go back and try again.',
        403,
        {},
        { back: { href: DEVICE_PAGE_PATH, label: 'Back' }, log: { reason: 'csrf_token_mismatch' } },
      );
    }
    const typed = (formField(request.body, 'user_code') ?? '').slice(0, 64);
    // Charged before the code is looked at, so parallel guesses cannot all pass (http/rate-limit.ts).
    const reservation = await limits.reserve('user_codes', `ip:${addressKey(request.ip)}`);
    const code = normalizeUserCode(typed);
    const authorization = code === undefined ? undefined : await deps.devices.enter(sha256(code));
    if (!authorization) {
      logRefusal(request, { reason: 'user_code_invalid' }, 400);
      return entryPage(request, reply, { userCode: typed, error: USER_CODE_NOT_VALID }, 400);
    }
    if (authorization.entries > MAX_ENTRIES_PER_CODE) {
      logRefusal(request, { reason: 'user_code_entries_exceeded', client_id: authorization.clientId }, 400);
      return entryPage(request, reply, { userCode: typed, error: USER_CODE_ENTERED_TOO_OFTEN }, 400);
    }
    await reservation.refund();
    const client = await deps.clients.find(authorization.clientId);
    if (!client) return entryPage(request, reply, { userCode: typed, error: USER_CODE_NOT_VALID }, 400);
    request.clientId = client.id;
    const parked = deviceRequest(client.id, authorization.scope, authorization.resource, sha256(code!));
    return sendNext(reply, await beginAuthorization(parked, client, { request, reply }, deps), deps);
  });

  app.get(DEVICE_RESULT_PATH, options, (request, reply) => {
    const outcome = (request.query as Record<string, unknown>).outcome;
    const known: DeviceOutcome = outcome === 'approved' || outcome === 'denied' ? outcome : 'gone';
    return sendPage(reply, renderDeviceResultPage(deps.brand, known));
  });
}
