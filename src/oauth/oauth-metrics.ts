// The authorization server's Prometheus metrics, beside the HTTP and outbox ones (docs/observability.md):
// tokens issued by grant type and client, refusals by endpoint and OAuth error code, refresh-token reuse
// detections, and sign-ins by method and outcome. Sign-ins and reuse detections are read from the audit events
// the sign-in pipeline and the security-event hook already emit (a subscriber, counted once the event's
// transaction commits), so no module counts inline what it already reports; issuance is counted by /token.
// Label values are bounded: grant types and error codes are fixed lists, client ids are registrations, methods
// are the pipeline's.
import type { FastifyInstance } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { AuditSubscriber } from '../audit/audit-sink.js';
import { OAuthError } from '../http/errors.js';

export interface OAuthMetrics {
  tokenIssued(grantType: string, clientId: string): void;
  /** Counts sign-ins and reuse detections from the audit events (subscribe it to the app's sink). */
  readonly auditSubscriber: AuditSubscriber;
  /** Counts the OAuth errors the face's endpoints answer (an onError hook on the face). */
  countRefusals(app: FastifyInstance): void;
  register(registry: Registry): void;
}

const SIGN_IN_OUTCOME = { 'login.succeeded': 'succeeded', 'login.failed': 'failed', 'login.locked_out': 'locked_out' } as const;

export function oauthMetrics(): OAuthMetrics {
  const issued = new Counter({
    name: 'oauth_tokens_issued_total',
    help: 'Successful /token responses by grant type and client',
    labelNames: ['grant_type', 'client_id'] as const,
    registers: [],
  });
  const refusals = new Counter({
    name: 'oauth_refusals_total',
    help: 'OAuth error responses of the authorization server by endpoint and error code (invalid_grant, invalid_client, …)',
    labelNames: ['endpoint', 'error'] as const,
    registers: [],
  });
  const reuse = new Counter({
    name: 'oauth_refresh_token_reuse_detections_total',
    help: 'Rotated refresh tokens presented again (the family was revoked), by client',
    labelNames: ['client_id'] as const,
    registers: [],
  });
  const signIns = new Counter({
    name: 'sign_ins_total',
    help: 'Sign-in attempts by method (password, totp, recovery_code, passkey, …) and outcome (succeeded, failed, locked_out)',
    labelNames: ['method', 'outcome'] as const,
    registers: [],
  });
  return {
    tokenIssued: (grantType, clientId) => issued.inc({ grant_type: grantType, client_id: clientId }),
    auditSubscriber: (event, { tx }) => {
      let count: (() => void) | undefined;
      if (event.type === 'refresh_token.reused') count = () => reuse.inc({ client_id: event.clientId ?? 'unknown' });
      if (event.type in SIGN_IN_OUTCOME) {
        const outcome = SIGN_IN_OUTCOME[event.type as keyof typeof SIGN_IN_OUTCOME];
        count = () => signIns.inc({ method: String(event.details?.method ?? 'unknown'), outcome });
      }
      if (!count) return;
      if (tx) tx.afterCommit(count);
      else count();
    },
    countRefusals(app) {
      app.addHook('onError', (request, _reply, error, done) => {
        if (error instanceof OAuthError) refusals.inc({ endpoint: request.routeOptions.url ?? 'unmatched', error: error.error });
        done();
      });
    },
    register(registry) {
      registry.registerMetric(issued);
      registry.registerMetric(refusals);
      registry.registerMetric(reuse);
      registry.registerMetric(signIns);
    },
  };
}

/** The face's registration: counts its OAuth errors. */
export const oauthRefusalMetrics = (app: FastifyInstance, services: { oauthMetrics: Pick<OAuthMetrics, 'countRefusals'> }): void =>
  services.oauthMetrics.countRefusals(app);
