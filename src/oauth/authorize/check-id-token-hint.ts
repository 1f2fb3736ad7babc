// OIDC Core 3.1.2.1 id_token_hint: an id_token we issued to this client, naming the user the client expects.
// A hint that does not verify is invalid_request; a valid one whose user is not the one signed in makes
// the flow ask for a login (and prompt=none answer login_required).
import type { JSONWebKeySet } from 'jose';
import { OAuthError } from '../../http/errors.js';
import { verifyIdTokenHint } from './id-token-hint.js';
import type { RequestParameters } from './parameters.js';

export interface IdTokenHintDeps {
  jwks: () => Promise<JSONWebKeySet>;
  issuer: string;
  sessionTtlSeconds: number;
}

/** The hinted user's `sub`, when a hint was sent. */
export async function checkIdTokenHint(params: RequestParameters, clientId: string, deps: IdTokenHintDeps): Promise<string | undefined> {
  const raw = params.values.id_token_hint;
  if (raw === undefined) return undefined;
  const hint = await verifyIdTokenHint(raw, deps);
  if (!hint || hint.clientId !== clientId) throw new OAuthError('invalid_request', 'id_token_hint is not an id_token issued to this client.');
  return hint.sub;
}
