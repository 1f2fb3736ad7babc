// RFC 6749 3.3: every requested scope must be registered (OIDC or a resource server's) and registered for
// the client, else invalid_scope. Operator-only scopes are never part of a user's grant (client_credentials only),
// except the admin scopes asked for by the built-in console client, which the code exchange narrows to what the
// user's operator role allows (../console-access.ts).
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { ResourceCatalogue } from '../resources/registry.js';
import { parseScope } from '../../scopes.js';
import { mayRequestOperatorScope } from '../console-access.js';
import type { RequestParameters } from './parameters.js';

export function checkScope(params: RequestParameters, client: Pick<Client, 'id' | 'scopes'>, catalogue: ResourceCatalogue): string[] {
  const scope = parseScope(params.values.scope);
  if (scope.length === 0) throw new OAuthError('invalid_scope', 'scope is required.');
  const refused = scope.find(
    (s) => !catalogue.isKnown(s) || (catalogue.isOperatorOnly(s) && !mayRequestOperatorScope(client, s)) || !client.scopes.includes(s),
  );
  if (refused !== undefined) {
    // Only a plain scope token is named back; anything else could carry markup into the client's page.
    const name = /^[A-Za-z0-9:_.-]{1,64}$/.test(refused) ? `The scope ${refused}` : 'A requested scope';
    throw new OAuthError('invalid_scope', `${name} is unknown or not allowed for this client.`);
  }
  return scope;
}
