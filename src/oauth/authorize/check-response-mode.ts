// OAuth 2.0 Multiple Response Type Encoding Practices §2.1 and OAuth 2.0 Form Post Response Mode: the code
// comes back in the query (the default of response_type=code) or as a form POST. Any other mode (fragment,
// the JARM modes, junk) is refused rather than ignored, so a client never waits for an answer in a place
// it will not arrive.
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

export const RESPONSE_MODES = ['query', 'form_post'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

const isResponseMode = (value: string | undefined): value is ResponseMode => (RESPONSE_MODES as readonly (string | undefined)[]).includes(value);

/** How an error may be returned before the mode is checked: the requested mode when supported, else query. */
export const deliveryMode = (params: RequestParameters): ResponseMode => {
  const mode = params.values.response_mode;
  return !params.duplicates.has('response_mode') && isResponseMode(mode) ? mode : 'query';
};

export function checkResponseMode(params: RequestParameters): ResponseMode {
  const mode = params.values.response_mode;
  if (mode === undefined) return 'query';
  if (!isResponseMode(mode)) throw new OAuthError('invalid_request', 'response_mode must be query or form_post.');
  return mode;
}
