// A CLI command: parses its own arguments and returns a JSON-serialisable result (printed on stdout).
import type { CliDeps } from './deps.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A command that ran and reached a negative verdict (e.g. `audit verify` on a broken chain): its result still goes to stdout, the message to stderr, and the exit code is 1. */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
  constructor(
    message: string,
    readonly result: unknown,
  ) {
    super(message);
  }
}

export interface Command {
  /** e.g. "users create" */
  readonly name: string;
  readonly usage: string;
  run(args: string[], core: CliDeps): Promise<unknown>;
}
