// Object-level access, separate from scope (docs/api-conventions.md): a user token reaches
// only its own user and that user's objects; a service token (client_credentials), whose route scope
// was already checked, reaches all. Anything else is answered 404, never 403, so ids cannot be probed.
import { ProblemError } from '../../http/errors.js';
import type { Principal } from '../../http/principal.js';

export function canAccessUser(principal: Principal, userId: string): boolean {
  return principal.kind === 'service' || principal.sub === userId;
}

export const notFound = (what = 'resource'): ProblemError => new ProblemError('not-found', `No such ${what}.`);
