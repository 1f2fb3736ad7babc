// Flag values shared by the commands.
import { didYouMean } from '../suggest.js';
import { UsageError } from './command.js';

/** `--FLAG` is one of `valid` (or absent); otherwise a usage error naming them, with the likely one. */
export function oneOf<T extends string>(flag: string, value: string | undefined, valid: readonly T[]): T | undefined {
  if (value === undefined || (valid as readonly string[]).includes(value)) return value as T | undefined;
  throw new UsageError(`--${flag} must be one of ${valid.join(', ')} (got ${JSON.stringify(value)})${didYouMean(value, valid)}`);
}
