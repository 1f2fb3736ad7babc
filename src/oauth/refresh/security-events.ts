// Security events (refresh-token reuse, authorization-code reuse) travel as error values: the grant throws
// a SecurityEventError (an RFC 6749 invalid_grant to the client) and one onError hook logs the event with
// the family id — never the token — so the grants stay free of logging.
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../http/errors.js';

export interface SecurityEvent {
  type: 'refresh_token_reuse' | 'authorization_code_reuse';
  /** The grant (refresh-token family) that was revoked in response. */
  familyId: string;
  clientId: string;
}

export class SecurityEventError extends OAuthError {
  constructor(
    readonly event: SecurityEvent,
    description: string,
  ) {
    super('invalid_grant', description);
  }
}

export function securityEventLog(app: FastifyInstance): void {
  app.addHook('onError', async (request, _reply, error) => {
    if (!(error instanceof SecurityEventError)) return;
    const { type, familyId, clientId } = error.event;
    request.log.warn({ security_event: type, family_id: familyId, client_id: clientId }, `security event: ${type}, family revoked`);
  });
}
