// /authorize validation as a pipeline of one-check steps (node-oidc-provider's lib/actions/authorization).
// The first two steps establish whom an error may be sent to; until then errors are pages (PageError),
// afterwards every OAuthError becomes a redirect to the client (AuthorizationErrorRedirect).
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { ClientLookup } from '../clients/client-cache.js';
import type { ResourceRegistry } from '../resources/registry.js';
import { PARSED_PARAMETERS, type AuthorizationRequest, type RedirectTarget } from './authorization-request.js';
import { checkClaims } from './check-claims.js';
import { checkClient } from './check-client.js';
import { checkIdTokenHint, type IdTokenHintDeps } from './check-id-token-hint.js';
import { checkNoDuplicates } from './check-duplicates.js';
import { checkDpopJkt } from './check-dpop-jkt.js';
import { checkLengths } from './check-lengths.js';
import { checkMaxAge } from './check-max-age.js';
import { checkNonce } from './check-nonce.js';
import { checkPkce } from './check-pkce.js';
import { checkPrompt } from './check-prompt.js';
import { checkRedirectUri } from './check-redirect-uri.js';
import { checkNoRequestObject } from './check-request-object.js';
import { checkResources } from './check-resource.js';
import { checkResponseMode, deliveryMode } from './check-response-mode.js';
import { checkResponseType } from './check-response-type.js';
import { checkScope } from './check-scope.js';
import { checkState } from './check-state.js';
import { AUTHORIZATION_PARAMETERS, readParameters } from './parameters.js';
import { AuthorizationErrorRedirect } from './redirect.js';

export interface ValidationDeps extends IdTokenHintDeps {
  clients: Pick<ClientLookup, 'find' | 'refusal'>;
  resources: Pick<ResourceRegistry, 'catalogue'>;
}

export async function validateAuthorizationRequest(source: unknown, deps: ValidationDeps): Promise<{ client: Client; request: AuthorizationRequest }> {
  const params = readParameters(source);
  const client = await checkClient(params, deps.clients);
  const redirectUri = checkRedirectUri(params, client);
  // An over-long state is not echoed back: the error says why it was refused.
  const sent = params.values.state;
  const echoState = sent !== undefined && sent.length <= AUTHORIZATION_PARAMETERS.state ? { state: sent } : {};
  const mode = deliveryMode(params);
  const target: RedirectTarget = { redirectUri, ...echoState, ...(mode !== 'query' ? { responseMode: mode } : {}) };
  try {
    checkNoDuplicates(params);
    checkNoRequestObject(params);
    checkLengths(params);
    checkClaims(params);
    const responseMode = checkResponseMode(params);
    checkResponseType(params, client);
    const state = checkState(params);
    const catalogue = await deps.resources.catalogue();
    const scope = checkScope(params, client, catalogue);
    const codeChallenge = checkPkce(params);
    const nonce = checkNonce(params);
    const prompt = checkPrompt(params);
    const maxAge = checkMaxAge(params);
    const resources = checkResources(source, scope, catalogue, client);
    const dpopJkt = checkDpopJkt(params);
    const idTokenHintSub = await checkIdTokenHint(params, client.id, deps);
    const loginHint = params.values.login_hint;
    const request: AuthorizationRequest = {
      clientId: client.id,
      redirectUri,
      state,
      scope,
      codeChallenge,
      prompt,
      parameters: Object.fromEntries(Object.entries(params.values).filter(([name]) => !PARSED_PARAMETERS.has(name))) as Record<string, string>,
      ...(responseMode !== 'query' ? { responseMode } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
      ...(maxAge !== undefined ? { maxAge } : {}),
      ...(loginHint !== undefined ? { loginHint } : {}),
      // One named resource is bound to the code (its tokens' default audience); several only bound the scope.
      ...(resources.length === 1 ? { resource: resources[0]! } : {}),
      ...(resources.length > 1 ? { resources } : {}),
      ...(idTokenHintSub !== undefined ? { idTokenHintSub } : {}),
      ...(dpopJkt !== undefined ? { dpopJkt } : {}),
    };
    return { client, request };
  } catch (error) {
    if (error instanceof OAuthError) throw new AuthorizationErrorRedirect(target, error);
    throw error;
  }
}
