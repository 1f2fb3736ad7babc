// Security events (refresh-token reuse, authorization-code reuse, a DPoP-bound refresh token or code
// presented without a proof of its key) travel as error values: the grant throws
// a SecurityEventError (an RFC 6749 invalid_grant to the client) and one onError hook logs the event with
// the family id — never the token — so the grants stay free of logging.
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../http/errors.js';
import type { AuditSink } from '../../audit/audit-sink.js';

export interface SecurityEvent {
  type: 'refresh_token_reuse' | 'authorization_code_reuse' | 'dpop_binding_mismatch';
  /** The grant (refresh-token family) concerned: revoked in response, except for dpop_binding_mismatch. */
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

const AUDIT_TYPE = { refresh_token_reuse: 'refresh_token.reused', authorization_code_reuse: 'authorization_code.reused' } as const;

export function securityEventLog(app: FastifyInstance, core: { audit: AuditSink }): void {
  app.addHook('onError', async (request, _reply, error) => {
    if (!(error instanceof SecurityEventError)) return;
    const { type, familyId, clientId } = error.event;
    const outcome = type === 'dpop_binding_mismatch' ? 'request refused, nothing changed' : 'family revoked';
    request.log.warn({ security_event: type, family_id: familyId, client_id: clientId }, `security event: ${type}, ${outcome}`);
    if (type !== 'dpop_binding_mismatch')
      await core.audit.emit({ type: AUDIT_TYPE[type], actor: { kind: 'system' }, clientId, details: { grant_id: familyId }, traceId: request.id });
  });
}
