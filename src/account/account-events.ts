// Every credential change a user makes on /account is one security event (docs/audit-log.md), of the shape
// the sign-in pipeline's events have: the user as actor and subject, the request's trace id, and details
// naming the face and what changed (a factor's kind, never a secret). The changes the owner must hear of
// even when someone else made them — a new password, a new second factor or passkey — also write a
// security notice to the account's address (src/self-service/notices.ts), in the event's transaction: the
// notice exists exactly when the event committed.
import type { FastifyRequest } from 'fastify';
import type { AuditEventType } from '../audit/audit-events.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { Store } from '../storage/store.js';
import type { NoticeKind, SecurityNotices } from '../self-service/notices.js';

export type AccountEventType = Extract<AuditEventType, `account.${string}`>;

export interface AccountEventSink {
  audit: AuditSink;
  store: Store;
  /** Absent: no notices (e-mail is off, or a test without them). */
  notices?: Pick<SecurityNotices, 'send'> | undefined;
}

const NOTICE_OF: Partial<Record<AccountEventType, NoticeKind>> = {
  'account.password_changed': 'password_changed',
  'account.second_factor_added': 'factor_added',
};

export function accountEvent(
  sink: AccountEventSink,
  request: Pick<FastifyRequest, 'id' | 'headers'>,
  type: AccountEventType,
  userId: string,
  details: Record<string, string | number | boolean> = {},
  tx?: Store,
): Promise<void> {
  const write = async (store: Store) => {
    await sink.audit.emit(
      { type, actor: { kind: 'user', userId }, subject: userId, traceId: request.id, details: { face: 'account', ...details } },
      { tx: store },
    );
    const notice = NOTICE_OF[type];
    if (notice && sink.notices) {
      const params: Record<string, string> = typeof details.factor === 'string' ? { factor: details.factor } : {};
      await sink.notices.send(store, userId, notice, { params, acceptLanguage: request.headers['accept-language'] });
    }
  };
  return tx ? write(tx) : sink.store.transaction(write);
}
