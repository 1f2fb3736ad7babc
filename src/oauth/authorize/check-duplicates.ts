// RFC 6749 3.1: "Request and response parameters MUST NOT be included more than once." — except
// `resource`, which RFC 8707 2 makes repeatable (check-resource.ts reads and bounds its values).
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

export function checkNoDuplicates(params: RequestParameters): void {
  const first = [...params.duplicates].find((name) => name !== 'resource');
  if (first !== undefined) throw new OAuthError('invalid_request', `The ${first} parameter was sent more than once.`);
}
