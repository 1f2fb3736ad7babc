// Gatehouse features land while the benchmarks are being written: set-up code reaches them through
// dynamic imports checked at run time, so a missing module makes a scenario "not runnable yet" instead
// of breaking the harness (or the type check).
import { NotRunnable } from '../lib/not-runnable.js';

export { NotRunnable };

const srcRoot = new URL('../../src/', import.meta.url);

/** The named export `name` of `src/<path>`, which must be a function; NotRunnable when it is absent. */
export async function srcFunction<F extends (...args: never[]) => unknown>(path: string, name: string): Promise<F> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(new URL(path, srcRoot).href)) as Record<string, unknown>;
  } catch (error) {
    throw new NotRunnable(`src/${path} is not there yet (${(error as Error).message.split('\n')[0]})`);
  }
  const f = mod[name];
  if (typeof f !== 'function') throw new NotRunnable(`src/${path} does not export ${name}() yet`);
  return f as F;
}
