import type { CliDeps } from './deps.js';
import { commands } from './commands/index.js';
import { UsageError, type Command } from './command.js';
import { didYouMean } from '../suggest.js';

export function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = commands.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

export const usage = (): string => ['usage: gatehouse <command>', '', ...commands.map((c) => `  ${c.usage}`)].join('\n');

/** "unknown command: …" with the likely intended command, for a command line findCommand did not match. */
export function unknownCommand(argv: string[]): string {
  const [first = '', second = ''] = argv;
  const group = commands.filter((c) => c.name.startsWith(`${first} `)).map((c) => c.name.slice(first.length + 1));
  const hint =
    group.length > 0
      ? `${didYouMean(second, group)}; ${first} takes one of: ${group.join(', ')}`
      : didYouMean(
          argv.slice(0, 2).join(' '),
          commands.map((c) => c.name),
        ) ||
        didYouMean(
          first,
          commands.map((c) => c.name),
        );
  return `unknown command: ${argv.join(' ') || '(none)'}${hint}\n${usage()}`;
}

/** The flags a command's usage line names: the valid options to list when one is not recognised. */
const flagsOf = (command: Command): string[] => [...new Set(command.usage.match(/--[a-z][a-z-]*/g) ?? [])];

function unknownOption(message: string, command: Command, args: string[]): string {
  const option = /Unknown option '([^']+)'/.exec(message)?.[1] ?? '';
  if (!option.startsWith('--')) {
    const typed = args.find((a) => a.startsWith(option)) ?? option;
    return `unknown option ${option}; an argument that starts with "-" goes after "--", as in: gatehouse ${command.name} -- ${typed}`;
  }
  const flags = flagsOf(command);
  return `unknown option ${option}${didYouMean(option, flags)}; valid options: ${flags.length ? flags.join(' ') : '(none)'}`;
}

/** Runs a command against a core; UsageErrors and argument errors come back as UsageError. */
export async function executeCommand(argv: string[], core: CliDeps): Promise<unknown> {
  const found = findCommand(argv);
  if (!found) throw new UsageError(unknownCommand(argv));
  try {
    return await found.command.run(found.rest, core);
  } catch (error) {
    // node:util parseArgs reports unknown or malformed options with ERR_PARSE_ARGS_* codes.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      const message = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOption((error as Error).message, found.command, found.rest) : (error as Error).message;
      throw new UsageError(`${message}\nusage: gatehouse ${found.command.usage}`);
    }
    throw error;
  }
}
