// Exponential back-off between delivery attempts: 10 s after the first failure, doubling up to an hour, with
// up to 20% added at random so that the messages a receiver's outage piled up do not all return at once.
export const FIRST_RETRY_MS = 10_000;
export const MAX_RETRY_MS = 3600_000;
/** 12 attempts ride out about three and a half hours of an outage (10 s, 20 s, … 43 min, 1 h, 1 h) before a message is dead. */
export const DEFAULT_MAX_ATTEMPTS = 12;

/** The wait after the `attempt`-th failed attempt (1-based). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 + 0.2 * random()));
}
