// Who receives admin scopes through the admin console's client (docs/console.md). Admin scopes are
// operator-only: /authorize refuses them for every client except the built-in console client, and what a
// user then receives is decided here, at the code exchange, from facts the user cannot choose:
//   - admin:read  only for an operator (`gatehouse users grant-admin`);
//   - admin:write only for an operator granted write, and only when the sign-in reached the MFA class
//     (acr urn:gatehouse:acr:mfa: the console steps up with acr_values when the operator asks to change things).
// A user who is not an operator gets no token at all (invalid_scope), never an admin-less token of the console.
import { OAuthError } from '../http/errors.js';
import { isAdminScope } from '../scopes.js';
import type { Client } from '../storage/repositories/clients-repository.js';
import type { OperatorRole } from '../storage/repositories/operator-roles-repository.js';
import { CONSOLE_CLIENT_ID } from './clients/console-client.js';
import { ACR_MFA } from './issued-tokens/authentication-context.js';

export const isConsoleClient = (client: Pick<Client, 'id'>): boolean => client.id === CONSOLE_CLIENT_ID;

/** /authorize: an operator-only scope may be asked for by the console client only, and only an admin scope. */
export const mayRequestOperatorScope = (client: Pick<Client, 'id'>, scope: string): boolean => isConsoleClient(client) && isAdminScope(scope);

/** The scope of a console token for this user and sign-in; throws when the user may have no admin scope. */
export function consoleScope(requested: readonly string[], role: Pick<OperatorRole, 'canWrite'> | undefined, acr: string | undefined): string[] {
  const allowed = (scope: string): boolean => {
    if (!isAdminScope(scope)) return true;
    if (!role) return false;
    return scope === 'admin:read' || (role.canWrite && acr === ACR_MFA);
  };
  const scope = requested.filter(allowed);
  if (!scope.some(isAdminScope)) {
    throw new OAuthError('invalid_scope', 'This account is not an operator of this Gatehouse (gatehouse users grant-admin).', {
      log: { reason: 'not_an_operator' },
    });
  }
  return scope;
}
