// A value read from the database and kept in memory for `ttlSeconds` (the freshness promise of the client
// cache, so a change made by the CLI or another instance counts everywhere within that time), with the
// two rules every such copy needs: concurrent misses share one read, and forget() (a change made through
// this instance) drops the copy at once — a read that was already under way may still answer its callers,
// but is not kept, since it may predate the change.
import type { Clock } from '../clock.js';

export interface FreshSnapshot<T> {
  get(): Promise<T>;
  forget(): void;
}

export function freshSnapshot<T>(load: () => Promise<T>, clock: Pick<Clock, 'now'>, ttlSeconds: number): FreshSnapshot<T> {
  let cached: { value: T; until: number } | undefined;
  let inFlight: Promise<T> | undefined;
  let generation = 0;
  return {
    get() {
      if (cached && cached.until > clock.now()) return Promise.resolve(cached.value);
      if (inFlight) return inFlight;
      const started = generation;
      const read: Promise<T> = load().then(
        (value) => {
          if (inFlight === read) inFlight = undefined;
          if (started === generation && ttlSeconds > 0) cached = { value, until: clock.now() + ttlSeconds * 1000 };
          return value;
        },
        (error: unknown) => {
          if (inFlight === read) inFlight = undefined;
          throw error;
        },
      );
      inFlight = read;
      return read;
    },
    forget() {
      generation += 1;
      cached = undefined;
      inFlight = undefined;
    },
  };
}
