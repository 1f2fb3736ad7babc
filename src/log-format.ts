// Human-readable log lines for a developer at a terminal; JSON (one object per line) everywhere else, so
// log collectors never have to parse prose. A small formatter instead of pino-pretty and its dozen dependencies.
import { Writable } from 'node:stream';

const LEVELS: Record<number, [name: string, color: number]> = {
  10: ['TRACE', 90],
  20: ['DEBUG', 36],
  30: ['INFO ', 32],
  40: ['WARN ', 33],
  50: ['ERROR', 31],
  60: ['FATAL', 35],
};
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err', 'v']);

/** Pretty lines only where a person reads them: a terminal, outside production. */
export const wantsPrettyLogs = (stdoutIsTty: boolean | undefined, nodeEnv: string): boolean => stdoutIsTty === true && nodeEnv !== 'production';

const flatten = (value: unknown, key: string, out: string[]): void => {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, `${key}.${k}`, out);
  } else {
    out.push(`${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`);
  }
};

/** One pino JSON line as `12:00:01.234 INFO  message key=value ...` (plus the error's stack, if any). */
export function formatLogLine(line: string, color = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const [name, code] = LEVELS[entry.level as number] ?? [String(entry.level), 0];
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const fields: string[] = [];
  for (const [key, value] of Object.entries(entry)) if (!HIDDEN.has(key)) flatten(value, key, fields);
  const level = color ? `\x1b[${code}m${name}\x1b[0m` : name;
  const err = entry.err as { stack?: string; message?: string } | undefined;
  const detail = err ? `\n  ${(err.stack ?? err.message ?? '').split('\n').join('\n  ')}` : '';
  return `${time} ${level} ${String(entry.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}${detail}\n`;
}

/** A pino destination that writes formatted lines to `out`. */
export function prettyLogStream(out: NodeJS.WritableStream, color = true): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = chunk.toString();
      for (const line of text.split('\n')) if (line) out.write(formatLogLine(line, color));
      done();
    },
  });
}
