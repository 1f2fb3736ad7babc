// Authentication context classes (OIDC Core 2 `acr`, 3.1.2.1 `acr_values`, 5.5.1.1 essential `acr`) and
// when a flow needs a second factor. Two classes: a password alone, and a password with a second factor.
// acr_values lists the client's preferences in order; the first one we support decides, and an unknown
// value alone asks for nothing (acr_values are voluntary, so a flow with "1 2" still completes).
import type { AuthorizationRequest } from '../../oauth/authorize/authorization-request.js';
import type { Client } from '../../storage/repositories/clients-repository.js';

import { ACR_MFA, ACR_VALUES_SUPPORTED } from '../../oauth/issued-tokens/authentication-context.js';

const supported = (value: unknown): value is string => typeof value === 'string' && (ACR_VALUES_SUPPORTED as readonly string[]).includes(value);

/** The acr requested as essential in the `claims` parameter (id_token or userinfo member), if any. */
function essentialAcr(claims: string | undefined): string[] {
  if (claims === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(claims);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const member of ['id_token', 'userinfo']) {
    const acr = (parsed as Record<string, Record<string, unknown> | undefined> | null)?.[member]?.acr as
      | { essential?: unknown; value?: unknown; values?: unknown }
      | undefined;
    if (acr?.essential !== true) continue;
    const values = Array.isArray(acr.values) ? acr.values : [acr.value];
    out.push(...values.filter(supported));
  }
  return out;
}

/** Whether the relying party asked for a second factor (acr_values, or an essential acr claim). */
function requestsSecondFactor(request: Pick<AuthorizationRequest, 'parameters'>): boolean {
  const essential = essentialAcr(request.parameters.claims);
  if (essential.length > 0) return essential.every((value) => value === ACR_MFA);
  const preferred = (request.parameters.acr_values ?? '').split(' ').find(supported);
  return preferred === ACR_MFA;
}

/** The client requires one, or this request asks for one. (An account that has one always uses it.) */
export const secondFactorDemanded = (request: Pick<AuthorizationRequest, 'parameters'>, client: Pick<Client, 'requireMfa'>): boolean =>
  client.requireMfa || requestsSecondFactor(request);
