// Every credential change a user makes on /account is one security event (docs/audit-log.md), of the shape
// the sign-in pipeline's events have: the user as actor and subject, the request's trace id, and details
// naming the face and what changed (a factor's kind, never a secret).
import type { FastifyRequest } from 'fastify';
import type { AuditEventType } from '../audit/audit-events.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { Db } from '../storage/database.js';

export type AccountEventType = Extract<AuditEventType, `account.${string}`>;

export function accountEvent(
  audit: AuditSink,
  request: Pick<FastifyRequest, 'id'>,
  type: AccountEventType,
  userId: string,
  details: Record<string, string | number | boolean> = {},
  tx?: Db,
): Promise<void> {
  return audit.emit({ type, actor: { kind: 'user', userId }, subject: userId, traceId: request.id, details: { face: 'account', ...details } }, tx ? { tx } : {});
}
