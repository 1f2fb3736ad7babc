/** A start-up condition that stops the process with its message as one line (no stack trace). */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
