// OIDC Core 6: request objects are not supported. Rejecting them explicitly (instead of ignoring them)
// keeps a client from believing its signed parameters were honoured; request_uri is never fetched.
import { OAuthError } from '../../http/errors.js';
import type { RequestParameters } from './parameters.js';

export function checkNoRequestObject(params: RequestParameters): void {
  if (params.values.request !== undefined) throw new OAuthError('request_not_supported', 'Request objects are not supported.');
  if (params.values.request_uri !== undefined) throw new OAuthError('request_uri_not_supported', 'request_uri is not supported.');
}
