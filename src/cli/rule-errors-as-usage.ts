// A service's rule errors name API members (`event_types`); a command's user typed flags (`--events`). This
// turns the first into the second for commands whose fields map one-to-one onto flags, quoting the refused
// value when the service gave it.
import { AdminRuleError } from '../admin-services/rule-error.js';
import { UsageError } from './command.js';

export function ruleErrorsAsUsage(flagOf: Readonly<Record<string, string>>) {
  return async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof AdminRuleError)) throw error;
      const flag = error.field !== undefined ? flagOf[error.field] : undefined;
      const quoted = error.value !== undefined ? ` ${JSON.stringify(error.value)}` : '';
      throw new UsageError(flag ? `${flag}${quoted} ${error.message}` : error.message);
    }
  };
}
