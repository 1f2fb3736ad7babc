// A ceiling on how deeply a request's JSON may nest arrays and objects. JSON.parse itself copes with any
// depth, but everything that later walks the value by recursion (request fingerprints, merge patch,
// structuredClone, schema validation) would overflow the stack on a body of a few hundred KiB of `[`.
// The text is measured before it is parsed, in one pass without recursion, so the refusal costs O(n).
import { ProblemError } from './errors.js';

/** Deepest accepted nesting of arrays/objects in a JSON request body (`[]` and `{}` are depth 1). */
export const MAX_JSON_DEPTH = 32;

export const tooDeep = (): ProblemError => new ProblemError('json-too-deep', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** True when the JSON text opens more than `max` arrays/objects inside each other (strings skipped). */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) {
      if (++depth > max) return true;
    } else if (CLOSERS.has(c)) depth--;
  }
  return false;
}

/** Throws json-too-deep when a parsed value nests deeper than `max`; iterative, so it is safe on any input. */
export function assertValueDepth(value: unknown, max = MAX_JSON_DEPTH): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > max) throw tooDeep();
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
}
