// The audit event of an admin change of a user, shared by users-service.ts and user-attributes.ts (its own
// module so that neither of those imports the other).
import type { AuditEventInput } from '../audit/audit-events.js';
import type { ActingAs } from './clients-service.js';

/** An admin change of a user: the user is both the resource and the subject. */
export const userChangeEvent = (
  type: AuditEventInput['type'],
  userId: string,
  as: ActingAs,
  changedFields: readonly string[],
  details?: AuditEventInput['details'],
): AuditEventInput => ({
  type,
  actor: as.actor,
  resource: 'user',
  resourceId: userId,
  subject: userId,
  changedFields,
  ...(details ? { details } : {}),
  ...(as.traceId ? { traceId: as.traceId } : {}),
});
