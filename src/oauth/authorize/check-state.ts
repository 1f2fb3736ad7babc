// SPEC "Authentication" 6: state binds the response to the client's browser session, so it is required.
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

export const MAX_STATE_LENGTH = 2048;

export function checkState(params: RequestParameters): string {
  const state = params.values.state;
  if (state === undefined) throw new OAuthError('invalid_request', 'state is required.');
  if (state.length > MAX_STATE_LENGTH) throw new OAuthError('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters.`);
  return state;
}
