// RFC 6749 3.1: "Request and response parameters MUST NOT be included more than once."
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

export function checkNoDuplicates(params: RequestParameters): void {
  const [first] = params.duplicates;
  if (first !== undefined) throw new OAuthError('invalid_request', `The ${first} parameter was sent more than once.`);
}
