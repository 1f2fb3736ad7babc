import type { Core } from '../core.js';
import { commands } from './commands/index.js';
import { UsageError, type Command } from './command.js';

export function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = commands.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

export const usage = (): string => ['usage: gatehouse <command>', '', ...commands.map((c) => `  ${c.usage}`)].join('\n');

/** Runs a command against a core; UsageErrors and argument errors come back as UsageError. */
export async function executeCommand(argv: string[], core: Core): Promise<unknown> {
  const found = findCommand(argv);
  if (!found) throw new UsageError(`unknown command: ${argv.join(' ') || '(none)'}\n${usage()}`);
  try {
    return await found.command.run(found.rest, core);
  } catch (error) {
    // node:util parseArgs reports unknown or malformed options with ERR_PARSE_ARGS_* codes.
    if (typeof (error as { code?: unknown }).code === 'string' && (error as { code: string }).code.startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError(`${(error as Error).message}\nusage: gatehouse ${found.command.usage}`);
    }
    throw error;
  }
}
