// A helper that (wrongly) registers a hook when imported: in a shared worker it would belong to whichever
// file imported it first, so the runner refuses it.
import { after } from 'node:test';

after(() => {});
export const answer = 42;
