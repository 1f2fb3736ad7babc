// RFC 8707 2: the only protected resource is the API, so `resource` may name it and nothing else.
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

export function checkResource(params: RequestParameters, apiAudience: string): string | undefined {
  const resource = params.values.resource;
  if (resource !== undefined && resource !== apiAudience) throw new OAuthError('invalid_target', 'The resource is not served here.');
  return resource;
}
