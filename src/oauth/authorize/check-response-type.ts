// Only the authorization code flow is offered (OAuth 2.1): the implicit (`token`) and hybrid
// (`code id_token`, ...) response types are refused (RFC 9700 2.1.2).
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { RequestParameters } from './parameters.js';

export function checkResponseType(params: RequestParameters, client: Pick<Client, 'grantTypes'>): 'code' {
  const responseType = params.values.response_type;
  if (responseType === undefined) throw new OAuthError('invalid_request', 'response_type is required.');
  if (responseType !== 'code') throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported.');
  if (!client.grantTypes.includes('authorization_code')) {
    throw new OAuthError('unauthorized_client', 'This client is not registered for the authorization code grant.');
  }
  return 'code';
}
