// OIDC Core 3.1.2.1: max_age is the allowable seconds since the last active authentication.
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

export function checkMaxAge(params: RequestParameters): number | undefined {
  const raw = params.values.max_age;
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw new OAuthError('invalid_request', 'max_age must be a non-negative integer.');
  return Number(raw);
}
