// The budgets of every page that sends e-mail (docs/rate-limits.md), per hour:
//   mail_address   (RATE_LIMIT_MAIL_PER_ADDRESS, 60)  submissions per client address: a 429, which tells
//                  the caller nothing about any account. A NAT of thousands of people asks for a reset or
//                  signs up far less than once a minute.
//   mail_recipient (RATE_LIMIT_MAIL_PER_RECIPIENT, 5) messages to one address, from all callers together:
//                  past it the page answers exactly as always and nothing is sent, so no one can bomb a
//                  victim's mailbox from many addresses, and the answer still says nothing about accounts.
// The recipient key is a digest of the lower-cased address: the counters (memory or Redis) never hold it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256 } from '../crypto/random.js';
import { addressKey } from '../http/address-key.js';
import { limitRequest } from '../http/limit-request.js';
import type { RateLimits } from '../http/rate-limit.js';

export function chargeMailAddress(limits: Pick<RateLimits, 'hit'>, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return limitRequest(limits as RateLimits, reply, 'mail_address', addressKey(request.ip));
}

/** Counts one message to `email`; false once the hour's budget is spent (send nothing, answer the same). */
export async function recipientBudgetAllows(limits: Pick<RateLimits, 'hit'>, email: string): Promise<boolean> {
  try {
    await limits.hit('mail_recipient', sha256(`recipient:${email.trim().toLowerCase()}`));
    return true;
  } catch (error) {
    if ((error as { status?: number }).status === 429) return false;
    throw error;
  }
}
