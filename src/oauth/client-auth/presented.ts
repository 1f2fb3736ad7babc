// Which authentication method the request uses (RFC 6749 2.3, RFC 7521 4.2). A client MUST NOT use more
// than one method in a request (RFC 6749 2.3), and credentials in the URI are never accepted (RFC 6749 2.3.1).
import { OAuthError } from '../../http/errors.js';
import type { FormParameters } from '../form-parameters.js';
import { isBasic, parseBasic } from './basic.js';
import { ClientAuthFailure } from './failure.js';

const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export type PresentedCredentials =
  | { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; secret: string }
  | { method: 'private_key_jwt'; clientId: string | undefined; assertion: string }
  | { method: 'none'; clientId: string };

export interface ClientAuthRequest {
  readonly headers: { readonly authorization?: string | undefined };
  readonly query: unknown;
  /** The client address (Fastify's request.ip), for per-address failure limits. */
  readonly ip?: string;
  /** Set to the claimed client_id as soon as it is known, so a refusal's log line names it. */
  clientId?: string | undefined;
}

const CREDENTIAL_PARAMETERS = ['client_id', 'client_secret', 'client_assertion', 'client_assertion_type'];

function rejectQueryCredentials(query: unknown): void {
  const names = typeof query === 'object' && query !== null ? Object.keys(query) : [];
  if (names.some((n) => CREDENTIAL_PARAMETERS.includes(n))) {
    throw new OAuthError('invalid_request', 'Client credentials are not accepted in the URL query.');
  }
}

export function presentedCredentials(request: ClientAuthRequest, params: FormParameters): PresentedCredentials {
  rejectQueryCredentials(request.query);
  const { authorization } = request.headers;
  const basic = isBasic(authorization);
  const post = params.client_secret !== undefined;
  const jwt = params.client_assertion !== undefined || params.client_assertion_type !== undefined;
  if (Number(basic) + Number(post) + Number(jwt) > 1) {
    throw new OAuthError('invalid_request', 'Use exactly one client authentication method.');
  }
  if (authorization !== undefined && !basic) throw new ClientAuthFailure('unsupported_authorization_scheme');
  if (basic) {
    const credentials = parseBasic(authorization);
    if (params.client_id !== undefined && params.client_id !== credentials.clientId) {
      throw new OAuthError('invalid_request', 'client_id does not match the authenticated client.');
    }
    return { method: 'client_secret_basic', ...credentials };
  }
  if (jwt) {
    if (params.client_assertion_type !== JWT_BEARER_ASSERTION || params.client_assertion === undefined) {
      throw new OAuthError('invalid_request', `client_assertion_type must be ${JWT_BEARER_ASSERTION} with a client_assertion.`);
    }
    return { method: 'private_key_jwt', clientId: params.client_id, assertion: params.client_assertion };
  }
  if (params.client_id === undefined) throw new ClientAuthFailure('no_client_credentials');
  return post ? { method: 'client_secret_post', clientId: params.client_id, secret: params.client_secret! } : { method: 'none', clientId: params.client_id };
}
