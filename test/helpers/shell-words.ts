// Just enough of POSIX shell word splitting to read the README's command lines: single and double quotes,
// backslash-newline continuations and # comments. No expansion: the README's commands use none.
export function commandLines(block: string): string[][] {
  return block
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map(words)
    .filter((line) => line.length > 0);
}

export function words(line: string): string[] {
  const out: string[] = [];
  let current: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unclosed ${c} in: ${line}`);
      current = (current ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === ' ' || c === '\t') {
      if (current !== undefined) out.push(current);
      current = undefined;
    } else if (c === '#' && current === undefined) {
      break;
    } else {
      current = (current ?? '') + c;
    }
  }
  if (current !== undefined) out.push(current);
  return out;
}
