// A CLI command: parses its own arguments and returns a JSON-serialisable result (printed on stdout).
import type { CliDeps } from './deps.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface Command {
  /** e.g. "users create" */
  readonly name: string;
  readonly usage: string;
  run(args: string[], core: CliDeps): Promise<unknown>;
}
