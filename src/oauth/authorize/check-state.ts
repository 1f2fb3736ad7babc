// RFC 6749 10.12: state binds the response to the client's browser session, so it is required.
// Its length is bounded with every other parameter (check-lengths).
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

export function checkState(params: RequestParameters): string {
  const state = params.values.state;
  if (state === undefined) throw new OAuthError('invalid_request', 'state is required.');
  return state;
}
