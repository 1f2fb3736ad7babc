// Every parameter is bounded, and so are all of them together: the parked interaction is written to the
// database before anyone has logged in, so its size must not be the caller's choice. An over-long value is
// refused, never truncated (a truncated state or nonce would silently break the client's checks).
import { OAuthError } from '../../http/errors.js';
import { AUTHORIZATION_PARAMETERS, MAX_AUTHORIZATION_PARAMETERS_BYTES, storedSize, type AuthorizationParameter, type RequestParameters } from './parameters.js';

export function checkLengths(params: RequestParameters): void {
  for (const [name, value] of Object.entries(params.values) as [AuthorizationParameter, string][]) {
    const max = AUTHORIZATION_PARAMETERS[name];
    if (value.length > max) throw new OAuthError('invalid_request', `${name} is longer than ${max} characters.`);
  }
  if (storedSize(params.values) > MAX_AUTHORIZATION_PARAMETERS_BYTES) {
    throw new OAuthError('invalid_request', `The request parameters together exceed ${MAX_AUTHORIZATION_PARAMETERS_BYTES} bytes.`);
  }
}
