// OIDC Core 5.5: the `claims` parameter is a JSON object whose `id_token` and `userinfo` members name
// individual claims, each null (voluntary) or an object with `essential` (boolean), `value` or `values`
// (an array). A value that is not such JSON is invalid_request (redirected to the client, 3.1.2.6), not
// silently ignored: a client that asked for an essential acr must not get a flow that ignored its request.
// Its length is bounded with the other parameters (check-lengths); its nesting is bounded here, before it
// is parsed, so a deeply nested value costs one linear scan. Members we do not know are ignored (5.5).
// What is honoured: an essential `acr` (src/interaction/mfa/acr.ts); individual claims are released in the
// id_token and at userinfo as far as the granted scopes release them (docs/claims-parameter.md).
import { OAuthError } from '../../http/errors.js';
import { jsonTextTooDeep } from '../../http/json-depth.js';
import type { RequestParameters } from './parameters.js';

/** Deepest accepted nesting: the object, a member, a claim's request, and its `values` array, with room to spare. */
export const MAX_CLAIMS_DEPTH = 6;

const MEMBERS = ['id_token', 'userinfo'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function claimRequestProblem(name: string, request: unknown): string | undefined {
  if (request === null) return undefined;
  if (!isObject(request)) return `${name} must be null or an object.`;
  if (request.essential !== undefined && typeof request.essential !== 'boolean') return `${name}.essential must be a boolean.`;
  if (request.values !== undefined && !Array.isArray(request.values)) return `${name}.values must be an array.`;
  return undefined;
}

/** The `claims` parameter parsed and checked; undefined when absent. Throws invalid_request otherwise. */
export function checkClaims(params: RequestParameters): Record<string, unknown> | undefined {
  const text = params.values.claims;
  if (text === undefined) return undefined;
  const refuse = (why: string) => new OAuthError('invalid_request', `The claims parameter is not valid: ${why}`, { log: { reason: 'claims_invalid' } });
  if (jsonTextTooDeep(text, MAX_CLAIMS_DEPTH)) throw refuse(`it is nested more than ${MAX_CLAIMS_DEPTH} levels deep.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse('it is not JSON.');
  }
  if (!isObject(parsed)) throw refuse('it must be a JSON object.');
  for (const member of MEMBERS) {
    const requests = parsed[member];
    if (requests === undefined) continue;
    if (!isObject(requests)) throw refuse(`${member} must be an object.`);
    for (const [name, request] of Object.entries(requests)) {
      const problem = claimRequestProblem(`${member}.${name}`, request);
      if (problem) throw refuse(problem);
    }
  }
  return parsed;
}
