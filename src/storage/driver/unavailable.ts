// Recognises errors meaning "the database cannot be reached right now" (as opposed to a bug or a
// constraint violation), so the error edges can answer 503 + Retry-After instead of 500.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return true;
    // SQLSTATE class 08 (connection exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now), 53300 (too many connections)
    if (/^08/.test(code) || /^57P0[123]$/.test(code) || code === '53300') return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|database did not answer/i.test(
    error.message,
  );
}
